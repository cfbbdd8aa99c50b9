package gemini

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/loopsim/loopsim/fakemodel/wire"
)

// protoPrefix is how the API names a message type in an error.
const protoPrefix = "type.googleapis.com/google.ai.generativelanguage.v1beta."

// structType is the type of a free-form JSON object (functionCall.args,
// functionResponse.response).
const structType = "type.googleapis.com/google.protobuf.Struct"

// refuse is a 400 INVALID_ARGUMENT with the API's message.
func refuse(format string, args ...any) *wire.Rejection {
	return &wire.Rejection{Message: fmt.Sprintf(format, args...)}
}

// invalidValue is the API's refusal of a value of the wrong JSON type
// at path (in the API's snake_case words), typ being the proto type
// expected: "Invalid value at 'generation_config.max_output_tokens'
// (TYPE_INT32), "many""; a long value is cut after [wire.DeltaBytes].
func invalidValue(path, typ string, raw json.RawMessage) *wire.Rejection {
	shown := string(bytes.TrimSpace(raw))
	if pieces := wire.Pieces(shown); len(pieces) > 1 {
		shown = pieces[0] + "..."
	}
	return refuse("Invalid value at '%s' (%s), %s", path, typ, shown)
}

// object reads raw as a JSON object of message type typ (a short name,
// "Content", or a full one).
func object(path, typ string, raw json.RawMessage) (map[string]json.RawMessage, *wire.Rejection) {
	var obj map[string]json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &obj) != nil {
		if typ != structType {
			typ = protoPrefix + typ
		}
		return nil, invalidValue(path, typ, raw)
	}
	return obj, nil
}

// list reads raw as a JSON list whose elements are of type typ; null is
// an empty list.
func list(path, typ string, raw json.RawMessage) ([]json.RawMessage, *wire.Rejection) {
	if wire.IsNull(raw) {
		return nil, nil
	}
	var items []json.RawMessage
	if t := bytes.TrimSpace(raw); t[0] != '[' || json.Unmarshal(t, &items) != nil {
		return nil, invalidValue(path, typ, raw)
	}
	return items, nil
}

// str reads a string field; null is "".
func str(path string, raw json.RawMessage) (string, *wire.Rejection) {
	if wire.IsNull(raw) {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", invalidValue(path, "TYPE_STRING", raw)
	}
	return s, nil
}

// boolean reads a bool field; null is false.
func boolean(path string, raw json.RawMessage) (bool, *wire.Rejection) {
	if wire.IsNull(raw) {
		return false, nil
	}
	var b bool
	if json.Unmarshal(raw, &b) != nil {
		return false, invalidValue(path, "TYPE_BOOL", raw)
	}
	return b, nil
}

// int32Field reads an int32 field as proto JSON writes one: a number or
// a string of digits; null is 0.
func int32Field(path string, raw json.RawMessage) (int, *wire.Rejection) {
	if wire.IsNull(raw) {
		return 0, nil
	}
	t := bytes.TrimSpace(raw)
	if t[0] == '"' {
		var s string
		if json.Unmarshal(t, &s) != nil {
			return 0, invalidValue(path, "TYPE_INT32", raw)
		}
		t = []byte(s)
	}
	n, err := strconv.ParseInt(string(t), 10, 32)
	if err != nil {
		return 0, invalidValue(path, "TYPE_INT32", raw)
	}
	return int(n), nil
}

// bytesField checks a bytes field: a base64 string; null is empty.
func bytesField(path string, raw json.RawMessage) *wire.Rejection {
	s, rej := str(path, raw)
	if rej != nil {
		return invalidValue(path, "TYPE_BYTES", raw)
	}
	if _, err := base64.StdEncoding.DecodeString(s); err != nil {
		if _, err := base64.URLEncoding.DecodeString(s); err != nil {
			return invalidValue(path, "TYPE_BYTES", raw)
		}
	}
	return nil
}

// syntaxError is the API's refusal of a body of n bytes that is not
// JSON.
func syntaxError(err error, n int) *wire.Rejection {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if se.Offset >= int64(n) {
			return refuse("Invalid JSON payload received. Unexpected end of string.")
		}
		return refuse("Invalid JSON payload received. Unexpected token at byte %d.", se.Offset)
	}
	return refuse("Invalid JSON payload received. Expected an object.")
}
