package messages_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/messages"
	"github.com/loopsim/loopsim/loop"
)

// A message with role "system" among the others (the released agent
// sends one after the user's first message) is taken as the API takes it:
// it counts with the system prompt and is not the conversation's.
func TestSystemRoleMessages(t *testing.T) {
	body := `{"model":"m","max_tokens":10,"stream":true,"messages":[` +
		`{"role":"user","content":[{"type":"text","text":"go"}]},` +
		`{"role":"system","content":[{"type":"text","text":"environment notes"}]}]}`
	d, err := decode([]byte(body), nil)
	require.NoError(t, err)
	require.Len(t, d.Request.Messages, 1)
	assert.Equal(t, loop.RoleUser, d.Request.Messages[0].Role)
	assert.Positive(t, d.SystemTokens)
	assert.Equal(t, []string{wire.Shape(d.Request.Messages[0])}, d.Shapes)

	_, err = decode([]byte(`{"model":"m","max_tokens":10,"messages":[{"role":"system","content":"only notes"}]}`), nil)
	assert.ErrorContains(t, err, "at least one user or assistant message")
	_, err = decode([]byte(`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"go"},{"role":"system"}]}`), nil)
	assert.ErrorContains(t, err, "messages.1.content: Field required")
}

// decode is the API's Decode of a Messages request body.
func decode(body []byte, models []loop.ModelInfo) (*wire.Decoded, error) {
	return messages.API{}.Decode(wire.Route{}, body, wire.DecodeOptions{Models: models})
}
