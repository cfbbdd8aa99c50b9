package messages_test

import (
	"testing"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/messages"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/require"
)

// FuzzDecode: no body makes the decoder panic; a body it accepts has a
// model, max_tokens, messages and a purpose, and one it rejects says why.
//
//	go test ./fakemodel/wire/messages -run XXX -fuzz FuzzDecode
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","max_tokens":10,"stream":true,"system":[{"type":"text","text":"s"}],"tools":[{"name":"Read"}],"messages":[{"role":"user","content":[{"type":"text","text":"go"}]},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Read","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"ok"}]}]}]}`,
		`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"image","source":{}}]}]}`,
		`{"model":"m","max_tokens":-1,"messages":[]}`,
		`{"messages":[null,{"role":"user"}]}`,
		`[`, `null`, ``,
	} {
		f.Add([]byte(seed))
	}
	models := []loop.ModelInfo{{Name: "m", ContextWindow: 1000, MaxOutputTokens: 100}}
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := messages.API{}.Decode(wire.Route{}, body, wire.DecodeOptions{Models: models})
		if err != nil {
			require.NotEmpty(t, err.Error(), "a rejection without a message")
			return
		}
		r := d.Request
		require.NotEmpty(t, r.Model, "accepted an incomplete request: %+v", r)
		require.GreaterOrEqual(t, r.MaxTokens, 1, "accepted an incomplete request: %+v", r)
		require.LessOrEqual(t, r.MaxTokens, 100, "accepted an incomplete request: %+v", r)
		require.NotEmpty(t, r.Messages, "accepted an incomplete request: %+v", r)
		require.GreaterOrEqual(t, r.InputTokens, len(r.Messages), "accepted an incomplete request: %+v", r)
		require.Contains(t, []loop.Purpose{loop.PurposeMain, loop.PurposeCompact}, r.Purpose, "purpose")
		require.Len(t, d.Shapes, len(r.Messages), "a shape for each message")
	})
}
