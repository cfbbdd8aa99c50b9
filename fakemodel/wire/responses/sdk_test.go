package responses_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
	rapi "github.com/loopsim/loopsim/fakemodel/wire/responses"
	"github.com/loopsim/loopsim/loop"
)

// params is a small request as the SDK sends it.
func params() responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model:           "gpt-test",
		MaxOutputTokens: openai.Int(1000),
		Input:           responses.ResponseNewParamsInputUnion{OfString: openai.String("go")},
	}
}

// summary is a parsed response's output as "type:fields" lines.
func summary(t *testing.T, r *responses.Response) []string {
	t.Helper()
	out := []string{}
	for _, it := range r.Output {
		require.True(t, it.JSON.ID.Valid(), "an item without an id")
		switch it.Type {
		case "message":
			m := it.AsMessage()
			require.Len(t, m.Content, 1)
			assert.Equal(t, "assistant", string(m.Role))
			out = append(out, "message:"+m.Content[0].Text)
		case "reasoning":
			rs := it.AsReasoning()
			require.Len(t, rs.Content, 1)
			out = append(out, "reasoning:"+rs.Content[0].Text)
		case "function_call":
			fc := it.AsFunctionCall()
			out = append(out, fmt.Sprintf("function_call:%s:%s:%s", fc.CallID, fc.Name, fc.Arguments))
		default:
			t.Fatalf("unexpected item type %q", it.Type)
		}
	}
	return out
}

func expected(blocks []loop.Block) []string {
	out := []string{}
	for _, b := range blocks {
		switch b.Type {
		case loop.BlockText:
			out = append(out, "message:"+b.Text)
		case loop.BlockThinking:
			out = append(out, "reasoning:"+b.Text)
		case loop.BlockToolUse:
			out = append(out, fmt.Sprintf("function_call:%s:%s:%s", b.ID, b.Name, b.Input))
		}
	}
	return out
}

var usage = loop.Usage{InputTokens: 300, OutputTokens: 40, CacheReadInputTokens: 1000, CacheCreationInputTokens: 20}

// replies are the successful answers every test plays.
var replies = map[string]wire.Answer{
	"text":      reply(loop.StopEndTurn, usage, text(strings.Repeat("long text é ", 20))),
	"tool":      reply(loop.StopToolUse, usage, thinking("let me look"), text("reading"), toolUse("call_1", "shell", `{"cmd":"ls -la"}`), toolUse("call_2", "read", `{}`)),
	"empty":     reply(loop.StopEndTurn, usage),
	"truncated": reply(loop.StopMaxTokens, usage, text("cut at the ca")),
	"malformed": reply(loop.StopMaxTokens, usage, text("calling"), toolUse("call_3", "shell", `{"cmd":"l`)),
}

// Every reply parses in the SDK, streamed and not, as the real API's
// do: the same output items, status, usage.
func TestSDKParsesReplies(t *testing.T) {
	for name, a := range replies {
		t.Run(name, func(t *testing.T) {
			client, _, _ := serve(t, a, a)
			r, err := client.Responses.New(t.Context(), params())
			require.NoError(t, err)
			checkResponse(t, r, a)

			s := client.Responses.NewStreaming(t.Context(), params())
			var evs []responses.ResponseStreamEventUnion
			for s.Next() {
				evs = append(evs, s.Current())
			}
			require.NoError(t, s.Err())
			require.GreaterOrEqual(t, len(evs), 3)
			for i, ev := range evs {
				assert.EqualValues(t, i, ev.SequenceNumber, "event %d (%s) numbered", i, ev.Type)
			}
			assert.Equal(t, "response.created", evs[0].Type)
			assert.Equal(t, "in_progress", string(evs[0].Response.Status))
			assert.Equal(t, "response.in_progress", evs[1].Type)
			last := evs[len(evs)-1]
			want := "response.completed"
			if a.Response.StopReason == loop.StopMaxTokens {
				want = "response.incomplete"
			}
			assert.Equal(t, want, last.Type)
			checkResponse(t, &last.Response, a)
			assert.Equal(t, expected(a.Blocks), streamed(t, evs), "the deltas add up to the items")
		})
	}
}

func checkResponse(t *testing.T, r *responses.Response, a wire.Answer) {
	t.Helper()
	assert.Regexp(t, `^resp_loopsim_00000[12]$`, r.ID)
	assert.Equal(t, "gpt-test", r.Model)
	assert.Equal(t, expected(a.Blocks), summary(t, r))
	require.True(t, r.JSON.Usage.Valid())
	assert.EqualValues(t, 1320, r.Usage.InputTokens, "input counts the cached tokens")
	assert.EqualValues(t, 1000, r.Usage.InputTokensDetails.CachedTokens)
	assert.EqualValues(t, 40, r.Usage.OutputTokens)
	assert.EqualValues(t, 1360, r.Usage.TotalTokens)
	if a.Response.StopReason == loop.StopMaxTokens {
		assert.Equal(t, responses.ResponseStatusIncomplete, r.Status)
		assert.Equal(t, "max_output_tokens", r.IncompleteDetails.Reason)
	} else {
		assert.Equal(t, responses.ResponseStatusCompleted, r.Status)
		assert.False(t, r.JSON.IncompleteDetails.Valid(), "incomplete_details is null")
	}
	assert.Equal(t, expectedText(a.Blocks), r.OutputText())
}

func expectedText(blocks []loop.Block) string {
	var sb strings.Builder
	for _, b := range blocks {
		if b.Type == loop.BlockText {
			sb.WriteString(b.Text)
		}
	}
	return sb.String()
}

// streamed rebuilds the items from the deltas, checking each done event
// against them.
func streamed(t *testing.T, evs []responses.ResponseStreamEventUnion) []string {
	t.Helper()
	type acc struct {
		typ, callID, name string
		sb                strings.Builder
		done              bool
	}
	var items []*acc
	for _, ev := range evs {
		switch ev.Type {
		case "response.output_item.added":
			require.EqualValues(t, len(items), ev.OutputIndex)
			items = append(items, &acc{typ: ev.Item.Type, callID: ev.Item.CallID, name: ev.Item.Name})
		case "response.output_text.delta", "response.reasoning_text.delta", "response.function_call_arguments.delta":
			items[ev.OutputIndex].sb.WriteString(ev.Delta)
		case "response.output_text.done", "response.reasoning_text.done":
			assert.Equal(t, items[ev.OutputIndex].sb.String(), ev.Text)
		case "response.function_call_arguments.done":
			assert.Equal(t, items[ev.OutputIndex].sb.String(), ev.Arguments)
		case "response.output_item.done":
			items[ev.OutputIndex].done = true
		}
	}
	out := []string{}
	for _, it := range items {
		require.True(t, it.done, "an item left open")
		switch it.typ {
		case "function_call":
			out = append(out, fmt.Sprintf("function_call:%s:%s:%s", it.callID, it.name, it.sb.String()))
		default:
			out = append(out, it.typ+":"+it.sb.String())
		}
	}
	return out
}

// Every fault outside a stream is the API's error as the SDK reads it:
// status, type, code, param, the message verbatim, retry-after.
func TestSDKParsesErrors(t *testing.T) {
	cases := []struct {
		err                     *loop.RequestError
		status                  int
		typ, code, param, retry string
	}{
		{&loop.RequestError{Kind: loop.KindPromptTooLong, Status: 400, Message: "prompt is too long: 9000 tokens > 8000 maximum"}, 400, "invalid_request_error", "context_length_exceeded", "", ""},
		{&loop.RequestError{Kind: loop.KindMediaTooLarge, Status: 400, Message: "image exceeds 5 MB maximum"}, 400, "invalid_request_error", "invalid_value", "input.content.image_url", ""},
		{&loop.RequestError{Kind: loop.KindInvalidRequest, Status: 400, Message: "bad"}, 400, "invalid_request_error", "", "", ""},
		{&loop.RequestError{Kind: loop.KindRequestTooLarge, Status: 413, Message: "too large"}, 413, "invalid_request_error", "request_too_large", "", ""},
		{&loop.RequestError{Kind: loop.KindRateLimited, Status: 429, Message: "slow down", RetryAfterMS: 1500}, 429, "tokens", "rate_limit_exceeded", "", "2"},
		{&loop.RequestError{Kind: loop.KindOverloaded, Status: 529, Message: "overloaded"}, 503, "service_unavailable_error", "server_is_overloaded", "", ""},
		{&loop.RequestError{Kind: loop.KindServer, Status: 502, Message: "bad gateway"}, 502, "server_error", "", "", ""},
		{&loop.RequestError{Kind: loop.KindServer, Status: 500, Message: "boom"}, 500, "server_error", "", "", ""},
		{&loop.RequestError{Kind: loop.KindOther, Status: 403, Message: "no"}, 403, "permission_error", "", "", ""},
		{&loop.RequestError{Kind: loop.KindStream, Message: "cut"}, 500, "server_error", "", "", ""},
	}
	for _, c := range cases {
		t.Run(string(c.err.Kind)+fmt.Sprint(c.status), func(t *testing.T) {
			client, _, _ := serve(t, fail(c.err))
			_, err := client.Responses.New(t.Context(), params())
			var aerr *openai.Error
			require.True(t, errors.As(err, &aerr), "got %v", err)
			assert.Equal(t, c.status, aerr.StatusCode)
			assert.Equal(t, c.typ, aerr.Type)
			assert.Equal(t, c.code, aerr.Code)
			assert.Equal(t, c.param, aerr.Param)
			assert.Equal(t, c.err.Message, aerr.Message)
			assert.Equal(t, "req_loopsim_000001", aerr.Response.Header.Get("x-request-id"))
			assert.Equal(t, c.retry, aerr.Response.Header.Get("retry-after"))
			if c.retry != "" {
				assert.Equal(t, "1500", aerr.Response.Header.Get("retry-after-ms"))
			}
		})
	}
}

// A failure in a stream is response.failed with its code, after the
// items that finished; a tool call it cut is left open. A prompt too long
// on a streamed request comes the same way.
func TestSDKParsesStreamFailures(t *testing.T) {
	cases := []struct {
		name  string
		a     wire.Answer
		code  string
		items []string
		label string
	}{
		{"stream error after text", fail(&loop.RequestError{Kind: loop.KindStream, Message: "cut"}, text("partial")), "server_error", []string{"message:partial"}, "M:stream_error"},
		{"stream error before content", fail(&loop.RequestError{Kind: loop.KindStream, Message: "cut"}), "server_error", []string{}, "M:stream_error"},
		{"prompt too long", fail(loop.PromptTooLongError(9000, 8000)), "context_length_exceeded", []string{}, "M:400"},
		{"overload after a cut tool call", fail(&loop.RequestError{Kind: loop.KindFallbackTriggered, Status: 529, Message: "overloaded"},
			text("a"), toolUse("call_1", "shell", `{"cmd":"l`)), "server_is_overloaded", []string{"message:a"}, "M:stream_error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client, _, srv := serve(t, c.a)
			s := client.Responses.NewStreaming(t.Context(), params())
			var evs []responses.ResponseStreamEventUnion
			for s.Next() {
				evs = append(evs, s.Current())
			}
			require.NoError(t, s.Err(), "response.failed is an event, not a stream error")
			last := evs[len(evs)-1]
			assert.Equal(t, "response.failed", last.Type)
			assert.Equal(t, responses.ResponseStatusFailed, last.Response.Status)
			assert.Equal(t, c.code, string(last.Response.Error.Code))
			assert.Equal(t, c.a.Err.Message, last.Response.Error.Message)
			assert.Equal(t, c.items, summary(t, &last.Response))
			added, done := 0, 0
			for _, ev := range evs {
				switch ev.Type {
				case "response.output_item.added":
					added++
				case "response.output_item.done":
					done++
				}
			}
			assert.Equal(t, len(c.a.Blocks), added)
			assert.Equal(t, len(c.items), done)
			recs := srv.Requests()
			assert.Equal(t, []string{c.label}, wire.Labels(recs))
			assert.Equal(t, 200, recs[0].Status, "sent as a stream")
		})
	}
}

// A dropped connection after content ends the stream without
// response.completed: the SDK reports the cut body.
func TestSDKSeesADroppedStream(t *testing.T) {
	client, _, srv := serve(t, wire.Answer{Outcome: wire.OutcomeDrop, Err: &loop.RequestError{Kind: loop.KindConnection}, Blocks: []loop.Block{text("partial")}})
	s := client.Responses.NewStreaming(t.Context(), params())
	var types []string
	for s.Next() {
		types = append(types, s.Current().Type)
	}
	require.Error(t, s.Err())
	assert.Contains(t, types, "response.output_item.done")
	assert.NotContains(t, types, "response.completed")
	assert.Equal(t, []string{"M:drop"}, wire.Labels(srv.Requests()))
}

// /v1/responses/compact answers with the compaction object: the input's
// user messages, then one compaction item carrying the summary.
func TestSDKParsesCompaction(t *testing.T) {
	client, m, srv := serve(t, reply(loop.StopEndTurn, usage, text("<summary>so far</summary>")))
	r, err := client.Responses.Compact(t.Context(), responses.ResponseCompactParams{
		Model: "gpt-test",
		Input: responses.ResponseCompactParamsInputUnion{OfResponseInputItemArray: []responses.ResponseInputItemUnionParam{
			responses.ResponseInputItemParamOfMessage("fix the test", responses.EasyInputMessageRoleUser),
			responses.ResponseInputItemParamOfMessage("done", responses.EasyInputMessageRoleAssistant),
		}},
	})
	require.NoError(t, err)
	require.Len(t, m.seen(), 1)
	assert.Equal(t, loop.PurposeCompact, m.seen()[0].Purpose)
	assert.Equal(t, []string{"C:text"}, wire.Labels(srv.Requests()))
	assert.Equal(t, "response.compaction", string(r.Object))
	require.Len(t, r.Output, 2)
	assert.Equal(t, "message", r.Output[0].Type)
	assert.Equal(t, "compaction", r.Output[1].Type)
	assert.Equal(t, "<summary>so far</summary>", r.Output[1].AsCompaction().EncryptedContent)
	assert.EqualValues(t, 40, r.Usage.OutputTokens)
}

// A request the API refuses reaches the SDK as its 400 with param and code.
func TestSDKParsesARefusal(t *testing.T) {
	client, m, srv := serve(t)
	p := params()
	p.MaxOutputTokens = openai.Int(8)
	_, err := client.Responses.New(t.Context(), p)
	var aerr *openai.Error
	require.True(t, errors.As(err, &aerr), "got %v", err)
	assert.Equal(t, 400, aerr.StatusCode)
	assert.Equal(t, "max_output_tokens", aerr.Param)
	assert.Equal(t, "integer_below_min_value", aerr.Code)
	assert.Empty(t, m.seen(), "a refused request reaches no model")
	assert.Equal(t, []string{"M:rejected"}, wire.Labels(srv.Requests()))
}

// input_tokens counts a request as the server estimates it.
func TestSDKCountsInputTokens(t *testing.T) {
	client, _, _ := serve(t)
	r, err := client.Responses.InputTokens.Count(t.Context(), responses.InputTokenCountParams{
		Model: openai.String("gpt-test"),
		Input: responses.InputTokenCountParamsInputUnion{OfString: openai.String(strings.Repeat("word ", 100))},
	})
	require.NoError(t, err)
	assert.Greater(t, r.InputTokens, int64(100))
	r, err = client.Responses.InputTokens.Count(t.Context(), responses.InputTokenCountParams{
		Instructions: openai.String("be brief"),
	})
	require.NoError(t, err, "a count needs neither a model nor an input")
	assert.Positive(t, r.InputTokens, "the instructions count")
}

// The SDK pointed at the server by ClientEnv's variables alone (no
// base-URL or key option) reaches it.
func TestClientEnvPointsTheSDKAtTheServer(t *testing.T) {
	_, m, srv := serve(t, reply(loop.StopEndTurn, usage, text("hi")))
	for _, kv := range (rapi.API{}).ClientEnv(srv.URL) {
		name, value, _ := strings.Cut(kv, "=")
		t.Setenv(name, value)
	}
	client := openai.NewClient(option.WithMaxRetries(0))
	r, err := client.Responses.New(t.Context(), params())
	require.NoError(t, err)
	assert.Equal(t, "hi", r.OutputText())
	assert.Len(t, m.seen(), 1)
}
