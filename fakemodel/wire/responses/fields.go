package responses

import (
	"encoding/json"

	"github.com/loopsim/loopsim/fakemodel/wire"
)

// object is a JSON object's fields, raw.
type object map[string]json.RawMessage

// wrongType is the API's refusal of a field of the wrong JSON type.
func wrongType(param, want string, raw json.RawMessage) *wire.Rejection {
	return rejection(param, CodeInvalidType, "Invalid type for '%s': expected %s, but got %s instead.", param, want, wire.ValueKind(raw))
}

// missing is the API's refusal of a missing required field.
func missing(param string) *wire.Rejection {
	return rejection(param, CodeMissingParameter, "Missing required parameter: '%s'.", param)
}

// str reads a string field: ok is false when it is absent or null.
func (o object) str(param, key string) (string, bool, *wire.Rejection) {
	raw := o[key]
	if wire.IsNull(raw) {
		return "", false, nil
	}
	var s string
	if wire.ValueKind(raw) != "a string" || json.Unmarshal(raw, &s) != nil {
		return "", false, wrongType(join(param, key), "a string", raw)
	}
	return s, true, nil
}

// need reads a required string field.
func (o object) need(param, key string) (string, *wire.Rejection) {
	s, ok, rej := o.str(param, key)
	if rej != nil {
		return "", rej
	}
	if !ok {
		return "", missing(join(param, key))
	}
	return s, nil
}

// integer reads an integer field: ok is false when it is absent or null.
func (o object) integer(key string) (int, bool, *wire.Rejection) {
	raw := o[key]
	if wire.IsNull(raw) {
		return 0, false, nil
	}
	var n int
	if wire.ValueKind(raw) != "an integer" || json.Unmarshal(raw, &n) != nil {
		return 0, false, wrongType(key, "an integer", raw)
	}
	return n, true, nil
}

// boolean reads a boolean field; absent or null is false.
func (o object) boolean(key string) (bool, *wire.Rejection) {
	raw := o[key]
	if wire.IsNull(raw) {
		return false, nil
	}
	var b bool
	if wire.ValueKind(raw) != "a boolean" || json.Unmarshal(raw, &b) != nil {
		return false, wrongType(key, "a boolean", raw)
	}
	return b, nil
}

// list reads an array field as raw elements; absent or null is none.
func list(param string, raw json.RawMessage) ([]json.RawMessage, *wire.Rejection) {
	if wire.IsNull(raw) {
		return nil, nil
	}
	var out []json.RawMessage
	if wire.ValueKind(raw) != "an array" || json.Unmarshal(raw, &out) != nil {
		return nil, wrongType(param, "an array", raw)
	}
	return out, nil
}

// obj reads raw as an object.
func obj(param string, raw json.RawMessage) (object, *wire.Rejection) {
	var o object
	if wire.ValueKind(raw) != "an object" || json.Unmarshal(raw, &o) != nil {
		return nil, wrongType(param, "an object", raw)
	}
	return o, nil
}

// join is a nested param's name, "input[2].content".
func join(param, key string) string {
	if param == "" {
		return key
	}
	return param + "." + key
}
