package wire

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsNull(t *testing.T) {
	for raw, want := range map[string]bool{"": true, " null ": true, "0": false, `""`: false, "{}": false, "nul": false} {
		assert.Equal(t, want, IsNull(json.RawMessage(raw)), "%q", raw)
	}
}

func TestValueKind(t *testing.T) {
	for raw, want := range map[string]string{
		"": "nothing", " ": "nothing", `"x"`: "a string", `{"a":1}`: "an object", "[1]": "an array",
		"true": "a boolean", "false": "a boolean", "null": "null", "1.5": "a decimal", "1e3": "a decimal",
		"2E1": "a decimal", "42": "an integer", " -7": "an integer",
	} {
		assert.Equal(t, want, ValueKind(json.RawMessage(raw)), "%q", raw)
	}
}
