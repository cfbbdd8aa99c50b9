package responses_test

import (
	"encoding/json"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/responses"
	"github.com/loopsim/loopsim/loop"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./fakemodel/wire/responses -run %s -update", t.Name())
	assert.Equal(t, string(want), string(got))
}

// The event streams, byte for byte: every reply and every stream failure.
func TestGoldenStreams(t *testing.T) {
	answers := map[string]wire.Answer{
		"stream_error":     fail(&loop.RequestError{Kind: loop.KindStream, Message: "the stream was cut"}, text("partial")),
		"prompt_too_long":  fail(loop.PromptTooLongError(9000, 8000)),
		"cut_tool_call":    fail(&loop.RequestError{Kind: loop.KindStream, Message: "cut"}, toolUse("call_1", "shell", `{"cmd":"l`)),
		"drop_after_text":  {Outcome: wire.OutcomeDrop, Err: &loop.RequestError{Kind: loop.KindConnection}, Blocks: []loop.Block{text("partial")}},
		"abort_after_text": {Outcome: wire.OutcomeAbort, Blocks: []loop.Block{text("partial")}},
	}
	for name, a := range replies {
		answers[name] = a
	}
	body := `{"model":"gpt-test","stream":true,"max_output_tokens":1000,"input":"go"}`
	d, err := responses.API{}.Decode(generate, []byte(body), models)
	require.NoError(t, err)
	for name, a := range answers {
		t.Run(name, func(t *testing.T) {
			a.Seq = 7
			rec := httptest.NewRecorder()
			s := wire.NewStream(rec, httptest.NewRequest("POST", "/v1/responses", nil), 0)
			responses.API{}.Stream(s, d, &a)
			s.Flush()
			require.NoError(t, s.Err())
			golden(t, name+".sse", rec.Body.Bytes())
		})
	}
}

// The JSON answers, indented: a reply, an incomplete one, the compaction
// object, and an error body.
func TestGoldenJSON(t *testing.T) {
	api := responses.API{}
	d, err := api.Decode(generate, []byte(`{"model":"gpt-test","max_output_tokens":1000,"input":"go"}`), models)
	require.NoError(t, err)
	c, err := api.Decode(compact, []byte(`{"model":"gpt-test","input":[{"role":"user","content":"fix it"},{"role":"assistant","content":"done"}]}`), models)
	require.NoError(t, err)
	withSeq := func(a wire.Answer) *wire.Answer { a.Seq = 7; return &a }
	rate := api.Error(&wire.Failure{Err: &loop.RequestError{Kind: loop.KindRateLimited, Status: 429, Message: "slow down", RetryAfterMS: 2500}, RequestID: "req_7"})
	for name, v := range map[string]any{
		"reply_tool.json":      api.Reply(d, withSeq(replies["tool"])),
		"reply_truncated.json": api.Reply(d, withSeq(replies["truncated"])),
		"compacted.json":       api.Reply(c, withSeq(reply(loop.StopEndTurn, usage, text("<summary>so far</summary>")))),
		"error_429.json":       map[string]any{"status": rate.Status, "header": rate.Header, "body": rate.Body},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := json.MarshalIndent(v, "", "  ")
			require.NoError(t, err)
			golden(t, name, append(b, '\n'))
		})
	}
}
