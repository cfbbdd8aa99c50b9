package chat_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

func fault(kind loop.ErrorKind, status int, msg string) *wire.Answer {
	return &wire.Answer{Outcome: wire.OutcomeError, Err: &loop.RequestError{Kind: kind, Status: status, Message: msg}}
}

// Every fault, streamed or not, reaches the official SDK as an
// *openai.Error with the API's status, type, code and message, and a
// 429's retry-after headers.
func TestFaultsAreErrorsTheSDKReads(t *testing.T) {
	rate := fault(loop.KindRateLimited, 429, "rate limit exceeded")
	rate.Err.RetryAfterMS = 1500
	cases := []struct {
		name    string
		answer  *wire.Answer
		status  int
		typ     string
		code    string
		message string
	}{
		{"prompt too long", fault(loop.KindPromptTooLong, 400, "prompt is too long: 9000 tokens > 8000 maximum"), 400, "invalid_request_error", "context_length_exceeded",
			"This model's maximum context length is 8000 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages."},
		{"invalid request", fault(loop.KindInvalidRequest, 400, "invalid request"), 400, "invalid_request_error", "", "invalid request"},
		{"media too large", fault(loop.KindMediaTooLarge, 400, "image exceeds 5 MB maximum"), 400, "invalid_request_error", "", "image exceeds 5 MB maximum"},
		{"request too large", fault(loop.KindRequestTooLarge, 413, "too big"), 413, "invalid_request_error", "request_too_large", "too big"},
		{"rate limited", rate, 429, "requests", "rate_limit_exceeded", "rate limit exceeded"},
		{"overloaded", fault(loop.KindOverloaded, 529, "overloaded"), 503, "server_error", "server_overloaded", "overloaded"},
		{"fallback", fault(loop.KindFallbackTriggered, 529, "switch"), 503, "server_error", "server_overloaded", "switch"},
		{"server error", fault(loop.KindServer, 500, "internal server error"), 500, "server_error", "", "internal server error"},
		{"server error 502", fault(loop.KindServer, 502, "bad gateway"), 502, "server_error", "", "bad gateway"},
		{"other 401", fault(loop.KindOther, 401, "status 401"), 401, "invalid_request_error", "", "status 401"},
		{"stream error, not streamed", fault(loop.KindStream, 0, "error event after no blocks"), 500, "server_error", "", "error event after no blocks"},
	}
	for _, stream := range []bool{false, true} {
		for _, c := range cases {
			name := c.name
			if stream {
				name += " streamed"
			}
			t.Run(name, func(t *testing.T) {
				if stream && c.answer.Err.Kind == loop.KindStream {
					t.Skip("a stream error in a stream is an error line (TestStreamErrorIsAnErrorLineTheSDKRaises)")
				}
				a := *c.answer
				srv := newMiniServer(t, &a)
				cl := client(srv.Server)
				var err error
				if stream {
					s := cl.Chat.Completions.NewStreaming(context.Background(), params())
					for s.Next() {
					}
					err = s.Err()
				} else {
					_, err = cl.Chat.Completions.New(context.Background(), params())
				}
				var aerr *openai.Error
				require.ErrorAs(t, err, &aerr)
				assert.Equal(t, c.status, aerr.StatusCode)
				assert.Equal(t, c.typ, aerr.Type)
				assert.Equal(t, c.code, aerr.Code)
				assert.Equal(t, c.message, aerr.Message)
				assert.Equal(t, "req_1", aerr.Response.Header.Get("x-request-id"))
				if c.status == 429 {
					assert.Equal(t, "2", aerr.Response.Header.Get("retry-after"))
					assert.Equal(t, "1500", aerr.Response.Header.Get("retry-after-ms"))
				}
			})
		}
	}
}

// A refused request reaches the SDK as a 400 naming the field.
func TestRefusalIsAnErrorTheSDKReads(t *testing.T) {
	srv := newMiniServer(t)
	p := params()
	p.MaxCompletionTokens = openai.Int(100_000)
	cl := client(srv.Server)
	_, err := cl.Chat.Completions.New(context.Background(), p)
	var aerr *openai.Error
	require.ErrorAs(t, err, &aerr)
	assert.Equal(t, http.StatusBadRequest, aerr.StatusCode)
	assert.Equal(t, "max_completion_tokens", aerr.Param)
	assert.Equal(t, "invalid_value", aerr.Code)
}

// A stream error after blocks reaches the SDK's stream as an error
// once the blocks before it were read.
func TestStreamErrorReachesTheSDK(t *testing.T) {
	srv := newMiniServer(t, &wire.Answer{Outcome: wire.OutcomeError, Blocks: []loop.Block{text("partial")},
		Err: &loop.RequestError{Kind: loop.KindStream, Message: "error event after 1 block"}})
	cl := client(srv.Server)
	s := cl.Chat.Completions.NewStreaming(context.Background(), params())
	n := 0
	for s.Next() {
		n++
	}
	var se *ssestream.StreamError
	require.ErrorAs(t, s.Err(), &se)
	assert.Equal(t, 2, n, "the role chunk and the text")
}

// A connection dropped mid-stream reaches the SDK as a read error.
func TestDroppedStreamReachesTheSDKAsAReadError(t *testing.T) {
	srv := newMiniServer(t, &wire.Answer{Outcome: wire.OutcomeDrop, Blocks: []loop.Block{text("partial")},
		Err: &loop.RequestError{Kind: loop.KindConnection, Message: "dropped"}})
	cl := client(srv.Server)
	s := cl.Chat.Completions.NewStreaming(context.Background(), params())
	for s.Next() {
	}
	require.Error(t, s.Err())
	var aerr *openai.Error
	assert.False(t, errors.As(s.Err(), &aerr))
}

// What the official SDK sends for a tool turn (an assistant message with
// tool calls, tool messages, tools, stream options, a system prompt)
// passes the API's checks and reads as the loop holds it.
func TestTheSDKsRequestsDecode(t *testing.T) {
	srv := newMiniServer(t, reply(loop.StopEndTurn, loop.Usage{InputTokens: 1}, text("ok")))
	asst := openai.ChatCompletionAssistantMessageParam{ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{
		{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: "call_1",
			Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "Read", Arguments: `{"p":1}`}}}}}
	p := openai.ChatCompletionNewParams{Model: "gpt-test", MaxCompletionTokens: openai.Int(100),
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("be brief"), openai.UserMessage("go"),
			{OfAssistant: &asst}, openai.ToolMessage("contents", "call_1"), openai.UserMessage("next")},
		Tools:         []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "Read"})},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	cl := client(srv.Server)
	s := cl.Chat.Completions.NewStreaming(context.Background(), p)
	var acc openai.ChatCompletionAccumulator
	for s.Next() {
		acc.AddChunk(s.Current())
	}
	require.NoError(t, s.Err())
	assert.Equal(t, "ok", acc.Choices[0].Message.Content)
	assert.Equal(t, int64(1), acc.Usage.PromptTokens)
	require.Len(t, srv.seen, 1)
	d := srv.seen[0]
	assert.Equal(t, []string{"user:text", "assistant:tool_use", "user:tool_result+text"}, d.Shapes)
	assert.Equal(t, []string{"Read"}, d.Request.Tools)
	assert.Equal(t, 100, d.Request.MaxTokens)
}
