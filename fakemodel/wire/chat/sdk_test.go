package chat_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/chat"
)

// Every fault, streamed or not, reaches the official SDK as an
// *openai.Error with the API's status, type, code and message, a 429's
// retry-after headers and the request's id; the record has the profile's
// label.
func TestFaultsAreErrorsTheSDKReads(t *testing.T) {
	cases := []struct {
		step    fakemodel.Step
		status  int
		typ     string
		code    string
		message string
	}{
		{fakemodel.Step{Kind: fakemodel.PromptTooLong, InputTokens: 250_000}, 400, "invalid_request_error", "context_length_exceeded",
			"This model's maximum context length is 200000 tokens. However, your messages resulted in 250000 tokens. Please reduce the length of the messages."},
		{fakemodel.Step{Kind: fakemodel.InvalidRequest}, 400, "invalid_request_error", "", "invalid request"},
		{fakemodel.Step{Kind: fakemodel.MediaTooLarge}, 400, "invalid_request_error", "", "image exceeds 5 MB maximum"},
		{fakemodel.Step{Kind: fakemodel.RequestTooLarge}, 413, "invalid_request_error", "request_too_large", "request exceeds the maximum allowed number of bytes"},
		{fakemodel.Step{Kind: fakemodel.RateLimited, RetryAfterMS: 1500}, 429, "requests", "rate_limit_exceeded", "rate limit exceeded"},
		{fakemodel.Step{Kind: fakemodel.Overloaded}, 503, "server_error", "server_overloaded", "overloaded"},
		{fakemodel.Step{Kind: fakemodel.FallbackTriggered}, 503, "server_error", "server_overloaded", `model "gpt-test" is overloaded: switch to the fallback model`},
		{fakemodel.Step{Kind: fakemodel.ServerError}, 500, "server_error", "", "internal server error"},
		{fakemodel.Step{Kind: fakemodel.ServerError, Status: 502}, 502, "server_error", "", "internal server error"},
		{fakemodel.Step{Kind: fakemodel.OtherStatus, Status: 401}, 401, "invalid_request_error", "", "status 401"},
	}
	for _, stream := range []bool{false, true} {
		for _, c := range cases {
			name := string(c.step.Kind)
			if stream {
				name += " streamed"
			}
			t.Run(name, func(t *testing.T) {
				srv, _ := serve(t, c.step)
				cl := client(srv)
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
				assert.Equal(t, "req_loopsim_000001", aerr.Response.Header.Get("x-request-id"))
				if c.status == 429 {
					assert.Equal(t, "2", aerr.Response.Header.Get("retry-after"))
					assert.Equal(t, "1500", aerr.Response.Header.Get("retry-after-ms"))
				}
				recs := srv.Requests()
				require.Len(t, recs, 1)
				assert.Equal(t, "M:"+aerr.Response.Status[:3], recs[0].Label())
				assert.Equal(t, "chat", recs[0].API)
			})
		}
	}
}

// A refused request reaches the SDK as a 400 naming the field, and is
// recorded as rejected without consuming a step.
func TestRefusalIsAnErrorTheSDKReads(t *testing.T) {
	srv, model := serve(t)
	p := params()
	p.MaxCompletionTokens = openai.Int(100_000)
	cl := client(srv)
	_, err := cl.Chat.Completions.New(context.Background(), p)
	var aerr *openai.Error
	require.ErrorAs(t, err, &aerr)
	assert.Equal(t, http.StatusBadRequest, aerr.StatusCode)
	assert.Equal(t, "max_completion_tokens", aerr.Param)
	assert.Equal(t, "invalid_value", aerr.Code)
	assert.Equal(t, []string{"M:rejected"}, wire.Labels(srv.Requests()))
	assert.Empty(t, model.Requests)
}

// A stream error after blocks reaches the SDK's stream as an error once
// the blocks before it were read; without a stream it is a 500.
func TestStreamErrorReachesTheSDK(t *testing.T) {
	srv, _ := serve(t, fakemodel.Step{Kind: fakemodel.StreamError, Text: "partial", After: 1}, fakemodel.Step{Kind: fakemodel.StreamError})
	cl := client(srv)
	s := cl.Chat.Completions.NewStreaming(context.Background(), params())
	var acc openai.ChatCompletionAccumulator
	for s.Next() {
		acc.AddChunk(s.Current())
	}
	var se *ssestream.StreamError
	require.ErrorAs(t, s.Err(), &se)
	assert.Equal(t, "partial", acc.Choices[0].Message.Content)
	_, err := cl.Chat.Completions.New(context.Background(), params())
	var aerr *openai.Error
	require.ErrorAs(t, err, &aerr)
	assert.Equal(t, 500, aerr.StatusCode)
	assert.Equal(t, []string{"M:stream_error", "M:500"}, wire.Labels(srv.Requests()))
}

// A connection dropped before the answer or mid-stream reaches the SDK
// as a transport or read error, not an API error.
func TestDroppedConnectionReachesTheSDKAsATransportError(t *testing.T) {
	srv, _ := serve(t, fakemodel.Step{Kind: fakemodel.ConnectionDropped, Text: "partial", After: 1},
		fakemodel.Step{Kind: fakemodel.ConnectionDropped})
	cl := client(srv)
	s := cl.Chat.Completions.NewStreaming(context.Background(), params())
	n := 0
	for s.Next() {
		n++
	}
	require.Error(t, s.Err())
	assert.Equal(t, 2, n, "the role chunk and the text")
	var aerr *openai.Error
	assert.False(t, errors.As(s.Err(), &aerr))
	_, err := cl.Chat.Completions.New(context.Background(), params())
	require.Error(t, err)
	assert.False(t, errors.As(err, &aerr))
	assert.Equal(t, []string{"M:drop", "M:drop"}, wire.Labels(srv.Requests()))
}

// Replies of every kind through the server: text, tool calls, a cut tool
// call, an empty reply, a tool-call stop without a call; the SDK reads
// each, and the records carry the profile's labels.
func TestRepliesThroughTheServer(t *testing.T) {
	srv, _ := serve(t,
		fakemodel.Step{Text: "hello"},
		fakemodel.Step{Text: "let me look", ToolUses: []fakemodel.ToolUse{{Name: "Read", ID: "call_a", Input: `{"path":"a.go"}`}}},
		fakemodel.Step{Kind: fakemodel.Truncated, ToolUses: []fakemodel.ToolUse{{Name: "Edit", ID: "call_b", Input: `{"file":"a.go"}`}}},
		fakemodel.Step{Kind: fakemodel.Empty},
		fakemodel.Step{Kind: fakemodel.MalformedToolUse},
	)
	cl := client(srv)
	want := []struct{ finish, content, args string }{
		{"stop", "hello", ""}, {"tool_calls", "let me look", `{"path":"a.go"}`}, {"length", "", `{"file"`}, {"stop", "", ""}, {"tool_calls", "I'll use a tool.", ""},
	}
	for i, w := range want {
		stream := i%2 == 0
		var msg openai.ChatCompletionMessage
		var finish string
		if stream {
			s := cl.Chat.Completions.NewStreaming(context.Background(), params())
			var acc openai.ChatCompletionAccumulator
			for s.Next() {
				acc.AddChunk(s.Current())
			}
			require.NoError(t, s.Err())
			msg, finish = acc.Choices[0].Message, acc.Choices[0].FinishReason
		} else {
			c, err := cl.Chat.Completions.New(context.Background(), params())
			require.NoError(t, err)
			msg, finish = c.Choices[0].Message, c.Choices[0].FinishReason
		}
		assert.Equal(t, w.finish, finish, "reply %d", i+1)
		assert.Equal(t, w.content, msg.Content, "reply %d", i+1)
		if w.args != "" {
			require.Len(t, msg.ToolCalls, 1, "reply %d", i+1)
			assert.Equal(t, w.args, msg.ToolCalls[0].Function.Arguments, "reply %d", i+1)
		} else {
			assert.Empty(t, msg.ToolCalls, "reply %d", i+1)
		}
	}
	assert.Equal(t, []string{"M:text", "M:tool", "M:trunc", "M:empty", "M:malformed"}, wire.Labels(srv.Requests()))
}

// What the official SDK sends for a tool turn (an assistant message with
// tool calls, a tool message, a user message after it, tools, stream
// options, a system prompt) passes the API's checks and reads as the
// loop holds it; a summary request after it is a compaction request.
func TestTheSDKsRequestsDecode(t *testing.T) {
	srv, model := serve(t, fakemodel.Step{Text: "ok", OutputTokens: 3}, fakemodel.Step{Text: "<summary>s</summary>"})
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
	cl := client(srv)
	s := cl.Chat.Completions.NewStreaming(context.Background(), p)
	var acc openai.ChatCompletionAccumulator
	for s.Next() {
		acc.AddChunk(s.Current())
	}
	require.NoError(t, s.Err())
	assert.Equal(t, "ok", acc.Choices[0].Message.Content)
	assert.Equal(t, int64(3), acc.Usage.CompletionTokens)
	recs := srv.Requests()
	require.Len(t, recs, 1)
	assert.Equal(t, []string{"user:text", "assistant:tool_use", "user:tool_result+text"}, recs[0].Appended)
	assert.Equal(t, "uau", recs[0].Roles)
	assert.Equal(t, 1, recs[0].Tools)
	assert.Equal(t, 100, recs[0].MaxTokens)
	assert.Equal(t, []string{"Read"}, model.Requests[0].Tools)

	p.Messages = append(p.Messages, openai.AssistantMessage("ok"),
		openai.UserMessage("Summarise the conversation so far in <summary></summary> tags."))
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{}
	_, err := cl.Chat.Completions.New(context.Background(), p)
	require.NoError(t, err)
	recs = srv.Requests()
	assert.Equal(t, "C:text", recs[1].Label())
	assert.Equal(t, 3, recs[1].Kept, "the first three messages are the same")
	assert.True(t, strings.HasPrefix(recs[1].Appended[0], "assistant:"))
}

// The environment ClientEnv gives points the official SDK, which reads
// OPENAI_BASE_URL and OPENAI_API_KEY, at the server.
func TestClientEnvPointsTheSDKAtTheServer(t *testing.T) {
	srv, _ := serve(t, fakemodel.Step{Text: "hello"})
	for _, kv := range (chat.API{}).ClientEnv(srv.URL) {
		name, value, _ := strings.Cut(kv, "=")
		t.Setenv(name, value)
	}
	cl := openai.NewClient(option.WithMaxRetries(0))
	c, err := cl.Chat.Completions.New(context.Background(), params())
	require.NoError(t, err)
	assert.Equal(t, "hello", c.Choices[0].Message.Content)
}
