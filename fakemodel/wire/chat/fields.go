package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/loopsim/loopsim/fakemodel/wire"
)

// The API's error codes for a refused request.
const (
	codeInvalidType     = "invalid_type"
	codeMissing         = "missing_required_parameter"
	codeInvalidValue    = "invalid_value"
	codeEmptyArray      = "empty_array"
	codeBelowMin        = "integer_below_min_value"
	codeContextTooLong  = "context_length_exceeded"
	codeRateLimited     = "rate_limit_exceeded"
	codeServerOverload  = "server_overloaded"
	codeRequestTooLarge = "request_too_large"
)

// refuse is a 400 invalid_request_error naming param.
func refuse(param, code, format string, args ...any) *wire.Rejection {
	return &wire.Rejection{Type: InvalidRequestError, Param: param, Code: code, Message: fmt.Sprintf(format, args...)}
}

// missing refuses a required field that is absent or null.
func missing(param string) *wire.Rejection {
	return refuse(param, codeMissing, "Missing required parameter: '%s'.", param)
}

// wrongType refuses a field of the wrong JSON type, in the API's words.
func wrongType(param, want string, raw json.RawMessage) *wire.Rejection {
	return refuse(param, codeInvalidType, "Invalid type for '%s': expected %s, but got %s instead.", param, want, wire.ValueKind(raw))
}

// object reads raw as a JSON object.
func object(raw json.RawMessage, param string) (map[string]json.RawMessage, *wire.Rejection) {
	if wire.ValueKind(raw) != "an object" {
		return nil, wrongType(param, "an object", raw)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, wrongType(param, "an object", raw)
	}
	return m, nil
}

// array reads raw as a JSON array.
func array(raw json.RawMessage, param string) ([]json.RawMessage, *wire.Rejection) {
	if wire.ValueKind(raw) != "an array" {
		return nil, wrongType(param, "an array", raw)
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, wrongType(param, "an array", raw)
	}
	return a, nil
}

// str reads raw as a JSON string.
func str(raw json.RawMessage, param string) (string, *wire.Rejection) {
	var s string
	if wire.ValueKind(raw) != "a string" || json.Unmarshal(raw, &s) != nil {
		return "", wrongType(param, "a string", raw)
	}
	return s, nil
}

// boolean reads raw as a JSON boolean.
func boolean(raw json.RawMessage, param string) (bool, *wire.Rejection) {
	var b bool
	if wire.ValueKind(raw) != "a boolean" || json.Unmarshal(raw, &b) != nil {
		return false, wrongType(param, "a boolean", raw)
	}
	return b, nil
}

// integer reads raw as a JSON integer that fits an int32: the API's
// integer fields are 32-bit.
func integer(raw json.RawMessage, param string) (int, *wire.Rejection) {
	if wire.ValueKind(raw) != "an integer" {
		return 0, wrongType(param, "an integer", raw)
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 32)
	if err != nil {
		return 0, refuse(param, codeInvalidValue, "Invalid '%s': integer above maximum value. Expected a value <= 2147483647, but got %s instead.", param, bytes.TrimSpace(raw))
	}
	return int(n), nil
}

// requiredString reads the required string field key of obj.
func requiredString(obj map[string]json.RawMessage, key, param string) (string, *wire.Rejection) {
	raw, ok := obj[key]
	if !ok || wire.IsNull(raw) {
		return "", missing(param)
	}
	return str(raw, param)
}
