package chat_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/chat"
)

func request(stream bool, msgs ...loop.Message) loop.Request {
	return loop.Request{Purpose: loop.PurposeMain, Model: "gpt-test", MaxTokens: 1000, Messages: msgs,
		InputTokens: 1234, Tools: []string{"Read"}, NonStreaming: !stream}
}

// call runs one request, collecting the blocks.
func call(t *testing.T, m loop.Model, req loop.Request) ([]loop.Block, loop.Response, error) {
	t.Helper()
	var blocks []loop.Block
	resp, err := m.Stream(context.Background(), req, func(b loop.Block) { blocks = append(blocks, b) })
	return blocks, resp, err
}

// Every reply reaches the loop with the same blocks, stop reason and
// usage, streamed or not: thinking (as reasoning_content), text, tool
// calls, a truncated call's cut arguments, an empty reply, a tool-call
// stop without a call; the server's own count comes back as the usage.
func TestRepliesReachTheLoop(t *testing.T) {
	steps := []fakemodel.Step{
		{Thinking: "hmm", Text: "let me look", ToolUses: []fakemodel.ToolUse{{Name: "Read", ID: "call_a", Input: `{"path":"a.go"}`},
			{Name: "Grep", ID: "call_b", Input: `{"pattern":"x"}`}}, OutputTokens: 12},
		{Kind: fakemodel.Truncated, Text: "cut", ToolUses: []fakemodel.ToolUse{{Name: "Edit", ID: "call_c", Input: `{"file":"a.go"}`}}},
		{Kind: fakemodel.Empty},
		{Kind: fakemodel.MalformedToolUse},
	}
	want := []struct {
		blocks []loop.Block
		stop   loop.StopReason
	}{
		{[]loop.Block{{Type: loop.BlockThinking, Text: "hmm"}, {Type: loop.BlockText, Text: "let me look"},
			{Type: loop.BlockToolUse, ID: "call_a", Name: "Read", Input: `{"path":"a.go"}`},
			{Type: loop.BlockToolUse, ID: "call_b", Name: "Grep", Input: `{"pattern":"x"}`}}, loop.StopToolUse},
		{[]loop.Block{{Type: loop.BlockText, Text: "cut"}, {Type: loop.BlockToolUse, ID: "call_c", Name: "Edit", Input: `{"file"`}}, loop.StopMaxTokens},
		{nil, loop.StopEndTurn},
		{[]loop.Block{{Type: loop.BlockText, Text: "I'll use a tool."}}, loop.StopToolUse},
	}
	for _, stream := range []bool{true, false} {
		m, _ := newModel(t, steps, chat.Config{SendInputTokens: true})
		for i, w := range want {
			blocks, resp, err := call(t, m, request(stream, loop.UserText("go")))
			require.NoError(t, err, "reply %d, stream %v", i+1, stream)
			assert.Equal(t, w.blocks, blocks, "reply %d, stream %v", i+1, stream)
			assert.Equal(t, w.stop, resp.StopReason, "reply %d, stream %v", i+1, stream)
			assert.Equal(t, 1234, resp.Usage.InputTokens, "the loop's own count, sent in the header")
		}
	}
}

// Every fault reaches the loop as the RequestError the in-process fake
// returns: its kind, the loop's status for it, its message (a prompt too
// long read back from OpenAI's words), a 429's retry-after.
func TestFaultsReachTheLoopAsItsErrors(t *testing.T) {
	cases := []struct {
		step fakemodel.Step
		want *loop.RequestError
	}{
		{fakemodel.Step{Kind: fakemodel.PromptTooLong, Maximum: 1000}, loop.PromptTooLongError(1234, 1000)},
		{fakemodel.Step{Kind: fakemodel.RequestTooLarge}, &loop.RequestError{Kind: loop.KindRequestTooLarge, Status: 413, Message: "request exceeds the maximum allowed number of bytes"}},
		{fakemodel.Step{Kind: fakemodel.MediaTooLarge}, &loop.RequestError{Kind: loop.KindMediaTooLarge, Status: 400, Message: "image exceeds 5 MB maximum"}},
		{fakemodel.Step{Kind: fakemodel.InvalidRequest}, &loop.RequestError{Kind: loop.KindInvalidRequest, Status: 400, Message: "invalid request"}},
		{fakemodel.Step{Kind: fakemodel.Overloaded}, &loop.RequestError{Kind: loop.KindOverloaded, Status: 529, Message: "overloaded"}},
		{fakemodel.Step{Kind: fakemodel.RateLimited, RetryAfterMS: 1500}, &loop.RequestError{Kind: loop.KindRateLimited, Status: 429, Message: "rate limit exceeded", RetryAfterMS: 1500}},
		{fakemodel.Step{Kind: fakemodel.ServerError, Status: 502}, &loop.RequestError{Kind: loop.KindServer, Status: 502, Message: "internal server error"}},
		{fakemodel.Step{Kind: fakemodel.OtherStatus, Status: 401}, &loop.RequestError{Kind: loop.KindOther, Status: 401, Message: "status 401"}},
		{fakemodel.Step{Kind: fakemodel.StreamError, Text: "partial", After: 1}, &loop.RequestError{Kind: loop.KindStream, Message: "error event after 1 content block"}},
	}
	for _, stream := range []bool{true, false} {
		for _, c := range cases {
			t.Run(string(c.step.Kind), func(t *testing.T) {
				m, _ := newModel(t, []fakemodel.Step{c.step}, chat.Config{SendInputTokens: true})
				_, _, err := call(t, m, request(stream, loop.UserText("go")))
				var re *loop.RequestError
				require.True(t, errors.As(err, &re), "a RequestError: %v", err)
				want := *c.want
				if !stream && want.Kind == loop.KindStream {
					want = loop.RequestError{Kind: loop.KindServer, Status: 500, Message: want.Message}
				}
				assert.Equal(t, want, *re)
			})
		}
	}
}

// A stream cut by an error line or a dropped connection hands the loop
// the blocks that arrived, but a tool call cut inside its arguments.
func TestCutStreamsHandOverWhatArrived(t *testing.T) {
	m, _ := newModel(t, []fakemodel.Step{
		{Kind: fakemodel.ConnectionDropped, Text: "partial", ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"p":1}`}}, After: 2},
		{Kind: fakemodel.ConnectionDropped},
	}, chat.Config{})
	blocks, _, err := call(t, m, request(true, loop.UserText("go")))
	var re *loop.RequestError
	require.True(t, errors.As(err, &re))
	assert.Equal(t, loop.KindConnection, re.Kind)
	assert.Len(t, blocks, 2)
	_, _, err = call(t, m, request(false, loop.UserText("go")))
	require.True(t, errors.As(err, &re))
	assert.Equal(t, loop.KindConnection, re.Kind)
}

// The loop's messages travel as the API takes them: a turn's tool
// results as tool messages and the text after them as a user message,
// which the server reads back into the loop's shapes; a system prompt
// and the tools count as system tokens.
func TestRequestsTravelAsTheAPITakesThem(t *testing.T) {
	m, srv := newModel(t, []fakemodel.Step{{Text: "ok"}}, chat.Config{System: "be brief"})
	msgs := []loop.Message{
		loop.UserText("fix it"),
		{Role: loop.RoleAssistant, Blocks: []loop.Block{{Type: loop.BlockThinking, Text: "hmm"}, {Type: loop.BlockText, Text: "looking"},
			{Type: loop.BlockToolUse, ID: "call_1", Name: "Read", Input: `{"p":1}`}, {Type: loop.BlockToolUse, ID: "call_2", Name: "Read", Input: `{"p":`}}},
		{Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockToolResult, ToolUseID: "call_1", Text: "a"},
			{Type: loop.BlockToolResult, ToolUseID: "call_2", Text: "b", IsError: true}, {Type: loop.BlockText, Text: "go on"}}},
	}
	_, _, err := call(t, m, request(true, msgs...))
	require.NoError(t, err)
	recs := srv.Requests()
	require.Len(t, recs, 1)
	assert.Equal(t, "chat", recs[0].API)
	assert.Equal(t, []string{"user:text", "assistant:text+tool_use+tool_use", "user:tool_result+tool_result+text"}, recs[0].Appended,
		"thinking is not sent back; the rest keeps its shape")
	assert.Equal(t, 1, recs[0].Tools)
	assert.Positive(t, recs[0].SystemTokens)
	assert.Equal(t, 1000, recs[0].MaxTokens)
}

// The loop runs over the Model: a 503 overload the retry layer retries
// (one HTTP request per attempt), a tool turn, then a text reply.
func TestLoopOverModel(t *testing.T) {
	m, srv := newModel(t, []fakemodel.Step{
		{Kind: fakemodel.Overloaded},
		{ToolUses: []fakemodel.ToolUse{{Name: "Bash", Input: `{"cmd":"go test"}`}}},
		{Text: "All tests pass."},
	}, chat.Config{SendInputTokens: true})
	cfg := loop.Config{
		Policy:  loop.ClaudeCode(),
		Model:   m,
		Primary: loop.ModelInfo{Name: "gpt-test", ContextWindow: 200_000, MaxOutputTokens: 32_000},
		Tools:   &fakemodel.Tools{ByName: map[string]fakemodel.Tool{"Bash": {Result: "ok"}}},
	}
	res, err := loop.Run(context.Background(), cfg, []loop.Message{loop.UserText("run the tests")})
	require.NoError(t, err)
	assert.Equal(t, loop.Completed, res.Terminal)
	assert.Equal(t, []string{"M:503", "M:tool", "M:text"}, labels(srv.Requests()))
}

// New refuses a config it cannot use.
func TestNewRefusesABadConfig(t *testing.T) {
	_, err := chat.New(chat.Config{})
	require.Error(t, err)
	_, err = chat.New(chat.Config{APIKey: "k", NonStreamingTimeout: -1})
	require.Error(t, err)
	m, err := chat.New(chat.Config{APIKey: "k"})
	require.NoError(t, err)
	_, err = m.Stream(context.Background(), loop.Request{}, func(loop.Block) {})
	require.ErrorContains(t, err, "no model")
}
