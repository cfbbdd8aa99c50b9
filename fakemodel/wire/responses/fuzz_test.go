package responses_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/responses"
	"github.com/loopsim/loopsim/loop"
)

// FuzzDecode: no body makes the decoder panic; a body it accepts has a
// model, input read into messages with a shape and hash each, a cap in
// range and a purpose; one it refuses says why in the API's words.
//
//	go test ./fakemodel/wire/responses -run XXX -fuzz FuzzDecode
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"model":"m","input":"hi"}`,
		`{"model":"m","max_output_tokens":100,"stream":true,"instructions":"s","tools":[{"type":"function","name":"f"}],"input":[{"role":"developer","content":"d"},{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]},{"type":"reasoning","summary":[{"type":"summary_text","text":"r"}]},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"ok"}]}`,
		`{"model":"m","input":[{"type":"compaction","encrypted_content":"x"},{"type":"web_search_call","id":"w"}]}`,
		`{"model":"m","input":[{"role":"assistant","content":[{"type":"refusal","refusal":"no"}]}],"previous_response_id":null}`,
		`{"model":"m","input":[null,{"role":"user"}]}`,
		`{"model":1}`, `[`, `null`, ``, `{}`,
	} {
		f.Add([]byte(seed))
	}
	opts := wire.DecodeOptions{Models: []loop.ModelInfo{{Name: "m", ContextWindow: 1000, MaxOutputTokens: 100}}}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, rt := range []wire.Route{{Endpoint: wire.EndpointGenerate}, {Endpoint: wire.EndpointCompact}} {
			d, err := responses.API{}.Decode(rt, body, opts)
			if err != nil {
				var rej *wire.Rejection
				require.True(t, errors.As(err, &rej), "a refusal that is not a *wire.Rejection: %v", err)
				require.NotEmpty(t, rej.Message, "a refusal without a message")
				continue
			}
			r := d.Request
			require.NotEmpty(t, r.Model, "accepted without a model: %+v", r)
			require.True(t, r.MaxTokens == 0 || r.MaxTokens >= responses.MinOutputTokens, "cap %d", r.MaxTokens)
			if r.Model == "m" {
				require.LessOrEqual(t, r.MaxTokens, 100, "cap over the model's maximum")
			}
			require.Len(t, d.Shapes, len(r.Messages), "a shape for each message")
			require.Len(t, d.Hashes, len(r.Messages), "a hash for each message")
			require.GreaterOrEqual(t, r.InputTokens, d.SystemTokens)
			require.Contains(t, []loop.Purpose{loop.PurposeMain, loop.PurposeCompact}, r.Purpose)
			if rt.Endpoint == wire.EndpointCompact {
				require.Equal(t, loop.PurposeCompact, r.Purpose)
			}
		}
	})
}
