package gemini_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// FuzzDecode: no body makes the decoder panic; a body it accepts has
// messages, a purpose, a shape and hash per message, a cap in range and
// every tool_result paired with a tool_use of the message before it;
// one it refuses says why.
//
//	go test ./fakemodel/wire/gemini -run XXX -fuzz FuzzDecode
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
		`{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"text":"t","thought":true},{"functionCall":{"name":"Read","args":{"p":1}}}]},{"role":"user","parts":[{"functionResponse":{"name":"Read","response":{"output":"x"}}}]}],"systemInstruction":{"parts":[{"text":"s"}]},"tools":[{"functionDeclarations":[{"name":"Read"}]}],"generationConfig":{"maxOutputTokens":"100"}}`,
		`{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}]}`,
		`{"generateContentRequest":{"contents":[{"parts":[{"text":"x"}]}]}}`,
		`{"contents":[{"role":"model","parts":[{"functionCall":{"id":"a","name":"x"}},{"functionCall":{"id":"a","name":"x"}}]}]}`,
		`{"contents":[null,{"role":5}]}`, `{"contents":"x"}`,
		`[`, `null`, ``, "\xff",
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	opts := wire.DecodeOptions{Models: []loop.ModelInfo{{Name: "m", ContextWindow: 1000, MaxOutputTokens: 100}}}
	f.Fuzz(func(t *testing.T, body []byte, count bool) {
		rt := wire.Route{Endpoint: wire.EndpointGenerate, Model: "m"}
		if count {
			rt.Endpoint = wire.EndpointCount
		}
		d, err := api.Decode(rt, body, opts)
		if err != nil {
			require.NotEmpty(t, err.Error(), "a rejection without a message")
			return
		}
		r := d.Request
		require.Equal(t, "m", r.Model)
		if !count {
			require.True(t, r.MaxTokens >= 0 && r.MaxTokens <= 100, "accepted a cap of %d", r.MaxTokens)
		}
		require.NotEmpty(t, r.Messages, "accepted a request without messages")
		require.GreaterOrEqual(t, r.InputTokens, len(r.Messages))
		require.Contains(t, []loop.Purpose{loop.PurposeMain, loop.PurposeCompact}, r.Purpose)
		require.Len(t, d.Shapes, len(r.Messages))
		require.Len(t, d.Hashes, len(r.Messages))
		for i, m := range r.Messages {
			for _, b := range m.Blocks {
				if b.Type != loop.BlockToolResult {
					continue
				}
				require.Positive(t, i, "a tool_result in the first message")
				found := false
				for _, u := range r.Messages[i-1].ToolUses() {
					found = found || u.ID == b.ToolUseID
				}
				require.True(t, found, "tool_result %q answers no tool_use of the message before", b.ToolUseID)
			}
		}
	})
}
