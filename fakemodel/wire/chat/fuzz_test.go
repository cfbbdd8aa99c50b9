package chat_test

import (
	"errors"
	"testing"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/chat"
)

// Decode never panics, refuses only with a *wire.Rejection, and an
// accepted body gives a shape and a hash per message and a purpose.
func FuzzDecode(f *testing.F) {
	for _, b := range []body{
		request(user("go")),
		request(system("s"), user("go"), calls("c1", "c2"), toolMsg("c1", "a"), toolMsg("c2", "b"), user("more")).with("stream", true).
			with("stream_options", map[string]any{"include_usage": true}).with("max_tokens", 9),
		request(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "x"}}}),
		request(user("x"), toolMsg("c", "r")),
	} {
		f.Add(mustJSON(f, b))
	}
	f.Add([]byte(`{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"custom","custom":{"name":"n","input":"i"}}]},{"role":"tool","tool_call_id":"a","content":[{"type":"text","text":"r"}]}]}`))
	f.Add([]byte("{\"model\":\"\xff\"}"))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := chat.API{}.Decode(wire.Route{}, raw, wire.DecodeOptions{Models: models})
		if err != nil {
			var rej *wire.Rejection
			if !errors.As(err, &rej) || rej.Message == "" {
				t.Fatalf("refused without the API's message: %v", err)
			}
			return
		}
		if len(d.Shapes) != len(d.Request.Messages) || len(d.Hashes) != len(d.Request.Messages) {
			t.Fatalf("%d messages, %d shapes, %d hashes", len(d.Request.Messages), len(d.Shapes), len(d.Hashes))
		}
		if d.Request.Purpose == "" || d.Request.InputTokens < d.SystemTokens {
			t.Fatalf("purpose %q, input %d < system %d", d.Request.Purpose, d.Request.InputTokens, d.SystemTokens)
		}
	})
}
