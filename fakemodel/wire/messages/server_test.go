package messages_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/messages"
	"github.com/loopsim/loopsim/loop"
)

func serve(t *testing.T, opts wire.Options, script ...fakemodel.Step) (*wire.Server, *fakemodel.Model) {
	t.Helper()
	model := &fakemodel.Model{Script: script, Window: 200_000, KeepMessages: true}
	srv := wire.NewServer(model, opts, messages.API{})
	t.Cleanup(srv.Close)
	return srv, model
}

func TestStreamsAReplyAsTheAPIDoes(t *testing.T) {
	long := strings.Repeat("é", 100) // cut into several deltas, on rune boundaries
	srv, _ := serve(t, wire.Options{}, fakemodel.Step{Thinking: "hmm", Text: long,
		ToolUses: []fakemodel.ToolUse{{Name: "Read", ID: "toolu_a", Input: `{"path":"a.go"}`}}, OutputTokens: 42})
	resp := post(t, srv.URL, request(true, userText("go")))
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	assert.Equal(t, "req_loopsim_000001", resp.Header.Get("request-id"))
	events, err := readEvents(t, resp.Body)
	require.NoError(t, err)

	got := names(events)
	assert.Equal(t, []string{"message_start", "ping",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop"}, got)
	start := events[0].Data["message"].(map[string]any)
	assert.Equal(t, "assistant", start["role"])
	assert.Equal(t, "claude-test", start["model"])
	assert.Empty(t, start["content"])

	blocks := accumulate(events)
	require.Len(t, blocks, 3)
	assert.Equal(t, "thinking", blocks[0]["type"])
	assert.Equal(t, "hmm", blocks[0]["text"])
	assert.Equal(t, long, blocks[1]["text"])
	assert.Equal(t, "tool_use", blocks[2]["type"])
	assert.Equal(t, "toolu_a", blocks[2]["id"])
	assert.JSONEq(t, `{"path":"a.go"}`, blocks[2]["input"].(string))

	delta := events[len(events)-2].Data
	assert.Equal(t, "tool_use", delta["delta"].(map[string]any)["stop_reason"])
	assert.EqualValues(t, 42, delta["usage"].(map[string]any)["output_tokens"])
}

func TestAnswersWithoutStreamingAsOneMessage(t *testing.T) {
	srv, _ := serve(t, wire.Options{},
		fakemodel.Step{Text: "cut", ToolUses: []fakemodel.ToolUse{{Name: "Edit", Input: `{"file":"a.go","text":"xx"}`}}, Kind: fakemodel.Truncated})
	resp := post(t, srv.URL, request(false, userText("go")))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	msg := decodeJSON(t, resp)
	assert.Equal(t, "message", msg["type"])
	assert.Equal(t, "max_tokens", msg["stop_reason"])
	content := msg["content"].([]any)
	require.Len(t, content, 2)
	tool := content[1].(map[string]any)
	assert.Equal(t, "toolu_1_1", tool["id"])
	assert.Equal(t, map[string]any{}, tool["input"], "a cut input cannot be sent as JSON: {}")
	assert.EqualValues(t, 1000, msg["usage"].(map[string]any)["output_tokens"], "truncated: the request's max_tokens")
}

func TestErrorsHaveTheAPIsStatusBodyAndHeaders(t *testing.T) {
	cases := []struct {
		step       fakemodel.Step
		status     int
		typ        string
		message    string
		retryAfter string
	}{
		{fakemodel.Step{Kind: fakemodel.PromptTooLong, InputTokens: 250_000}, 400, "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum", ""},
		{fakemodel.Step{Kind: fakemodel.RequestTooLarge}, 413, "request_too_large", "", ""},
		{fakemodel.Step{Kind: fakemodel.RateLimited, RetryAfterMS: 1500}, 429, "rate_limit_error", "", "2"},
		{fakemodel.Step{Kind: fakemodel.ServerError}, 500, "api_error", "", ""},
		{fakemodel.Step{Kind: fakemodel.ServerError, Status: 503}, 503, "api_error", "", ""},
		{fakemodel.Step{Kind: fakemodel.Overloaded}, 529, "overloaded_error", "", ""},
		{fakemodel.Step{Kind: fakemodel.FallbackTriggered}, 529, "overloaded_error", "", ""},
		{fakemodel.Step{Kind: fakemodel.InvalidRequest, Message: "bad thing"}, 400, "invalid_request_error", "bad thing", ""},
		{fakemodel.Step{Kind: fakemodel.OtherStatus, Status: 401}, 401, "authentication_error", "", ""},
		{fakemodel.Step{Kind: fakemodel.MediaTooLarge}, 400, "invalid_request_error", "", ""},
	}
	for _, stream := range []bool{false, true} {
		for _, c := range cases {
			t.Run(string(c.step.Kind), func(t *testing.T) {
				srv, _ := serve(t, wire.Options{}, c.step)
				resp := post(t, srv.URL, request(stream, userText("go")))
				assert.Equal(t, c.status, resp.StatusCode)
				assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
				assert.Equal(t, "req_loopsim_000001", resp.Header.Get("request-id"))
				assert.Equal(t, c.retryAfter, resp.Header.Get("retry-after"))
				b := decodeJSON(t, resp)
				assert.Equal(t, "error", b["type"])
				assert.Equal(t, "req_loopsim_000001", b["request_id"])
				e := b["error"].(map[string]any)
				assert.Equal(t, c.typ, e["type"])
				if c.message != "" {
					assert.Equal(t, c.message, e["message"])
				}
				rec := srv.Requests()
				require.Len(t, rec, 1)
				assert.Equal(t, "M:"+resp.Status[:3], rec[0].Label())
			})
		}
	}
}

func TestErrorEventMidStream(t *testing.T) {
	srv, _ := serve(t, wire.Options{}, fakemodel.Step{Kind: fakemodel.StreamError, Text: "partial", After: 2})
	resp := post(t, srv.URL, request(true, userText("go")))
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	events, err := readEvents(t, resp.Body)
	require.NoError(t, err)
	assert.Equal(t, []string{"message_start", "ping",
		"content_block_start", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_stop", "error"}, names(events))
	assert.Equal(t, "api_error", events[len(events)-1].Data["error"].(map[string]any)["type"])
	assert.Equal(t, []string{"M:stream_error"}, wire.Labels(srv.Requests()))
}

func TestStreamErrorWithoutStreamingIs500(t *testing.T) {
	srv, _ := serve(t, wire.Options{}, fakemodel.Step{Kind: fakemodel.StreamError})
	resp := post(t, srv.URL, request(false, userText("go")))
	assert.Equal(t, 500, resp.StatusCode)
	assert.Equal(t, "api_error", decodeJSON(t, resp)["error"].(map[string]any)["type"])
}

func TestDroppedConnection(t *testing.T) {
	srv, _ := serve(t, wire.Options{},
		fakemodel.Step{Kind: fakemodel.ConnectionDropped},
		fakemodel.Step{Kind: fakemodel.ConnectionDropped, After: 1},
		fakemodel.Step{Kind: fakemodel.ConnectionDropped},
	)
	_, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(mustJSON(t, request(true, userText("go")))))
	require.Error(t, err, "dropped before any answer")

	resp := post(t, srv.URL, request(true, userText("go")))
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	events, err := readEvents(t, resp.Body)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF, "the stream stops without its end")
	assert.Equal(t, []string{"message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop"}, names(events))

	_, err = http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(mustJSON(t, request(false, userText("go")))))
	require.Error(t, err, "non-streaming: dropped before the answer")
	assert.Equal(t, []string{"M:drop", "M:drop", "M:drop"}, wire.Labels(srv.Requests()))
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestScriptRunOutIsAHarnessFault(t *testing.T) {
	srv, _ := serve(t, wire.Options{})
	resp := post(t, srv.URL, request(true, userText("go")))
	assert.Equal(t, 500, resp.StatusCode)
	assert.Contains(t, decodeJSON(t, resp)["error"].(map[string]any)["message"], "script exhausted")
	rec := srv.Requests()
	assert.Equal(t, "M:fault", rec[0].Label())
	assert.Contains(t, rec[0].Error, "script exhausted")
}

func TestUnknownPathAndMethod(t *testing.T) {
	srv, _ := serve(t, wire.Options{})
	resp, err := http.Get(srv.URL + "/v1/messages")
	require.NoError(t, err)
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	resp.Body.Close()
	resp, err = http.Get(srv.URL + "/v1/messages/count_tokens")
	require.NoError(t, err)
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "count_tokens takes POST only")
	assert.Equal(t, "invalid_request_error", decodeJSON(t, resp)["error"].(map[string]any)["type"])
	resp, err = http.Get(srv.URL + "/v1/models")
	require.NoError(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, "not_found_error", decodeJSON(t, resp)["error"].(map[string]any)["type"])
}

func TestCountTokens(t *testing.T) {
	srv, model := serve(t, wire.Options{})
	b := request(false, userText(strings.Repeat("x", 400)))
	delete(b, "max_tokens")
	resp, err := http.Post(srv.URL+"/v1/messages/count_tokens", "application/json", strings.NewReader(mustJSON(t, b)))
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	assert.EqualValues(t, 103, decodeJSON(t, resp)["input_tokens"])
	assert.Empty(t, model.Requests, "count_tokens asks no model")
}

var _ loop.Model = (*fakemodel.Model)(nil)
