package wire

import (
	"bytes"
	"encoding/json"
)

// IsNull reports whether a field's raw JSON is absent or null: the APIs
// read both as the field's default.
func IsNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// ValueKind is a raw JSON value's type as OpenAI's error messages name it
// ("a string", "an object", "an array", "a boolean", "null", "a decimal",
// "an integer"; "nothing" when absent).
func ValueKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	if bytes.ContainsAny(raw, ".eE") {
		return "a decimal"
	}
	return "an integer"
}
