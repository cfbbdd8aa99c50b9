package messagesapi_test

import (
	"testing"

	"github.com/loopsim/loopsim/fakemodel/messagesapi"
	"github.com/loopsim/loopsim/loop"
)

// FuzzDecode: no body makes the decoder panic; a body it accepts has a
// model, max_tokens, messages and a purpose, and one it rejects says why.
//
//	go test ./fakemodel/messagesapi -run XXX -fuzz FuzzDecode
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
		d, err := messagesapi.Decode(body, models)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("a rejection without a message")
			}
			return
		}
		r := d.Request
		if r.Model == "" || r.MaxTokens < 1 || r.MaxTokens > 100 || len(r.Messages) == 0 || r.InputTokens < len(r.Messages) {
			t.Fatalf("accepted an incomplete request: %+v", r)
		}
		if r.Purpose != loop.PurposeMain && r.Purpose != loop.PurposeCompact {
			t.Fatalf("purpose %q", r.Purpose)
		}
		if len(d.Shapes) != len(r.Messages) {
			t.Fatalf("%d shapes for %d messages", len(d.Shapes), len(r.Messages))
		}
	})
}
