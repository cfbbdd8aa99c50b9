package responses_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/responses"
)

// history is a conversation with every block type, as the loop keeps it.
func history() []loop.Message {
	return []loop.Message{
		{ID: "m1", Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockText, Text: "fix the test"}}},
		{ID: "m2", Role: loop.RoleAssistant, Blocks: []loop.Block{
			{Type: loop.BlockThinking, Text: "plan"},
			{Type: loop.BlockText, Text: "looking"}, {Type: loop.BlockText, Text: "twice"},
			{Type: loop.BlockToolUse, ID: "call_1", Name: "Read", Input: `{"path":"a.go"}`},
			{Type: loop.BlockToolUse, ID: "call_2", Name: "Bash", Input: `{"cmd":"go te`},
		}},
		{ID: "m3", Role: loop.RoleUser, Blocks: []loop.Block{
			{Type: loop.BlockToolResult, ToolUseID: "call_1", Text: "package a"},
			{Type: loop.BlockToolResult, ToolUseID: "call_2", Text: "bad input", IsError: true},
			{Type: loop.BlockText, Text: "and hurry"},
		}},
		{ID: "m4", Role: loop.RoleAssistant},
		{ID: "m5", Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockText, Text: "go on"}}},
		{ID: "m6", Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockText, Text: "please"}}},
	}
}

// The messages the loop sends reach the fake server's model as the same
// messages, block for block (roles, order, ids, inputs, texts), streamed
// and not: the grouping of items the server applies undoes the Model's
// split. Only is_error does not travel (a function_call_output has no
// such field).
func TestMessagesRoundTrip(t *testing.T) {
	for _, nonStreaming := range []bool{false, true} {
		script := &fakemodel.Model{Script: []fakemodel.Step{{Text: "ok"}}, KeepMessages: true}
		srv := fakeapi.NewServer(script, wire.Options{})
		m, err := responses.New(responses.Config{BaseURL: srv.URL + "/v1", APIKey: "k", SendInputTokens: true})
		require.NoError(t, err)
		req := loop.Request{Purpose: loop.PurposeMain, Model: "gpt-test", MaxTokens: 1000, Messages: history(),
			InputTokens: 1234, Tools: []string{"Read", "Bash"}, NonStreaming: nonStreaming}
		var got []loop.Block
		resp, err := m.Stream(context.Background(), req, func(b loop.Block) { got = append(got, b) })
		srv.Close()
		require.NoError(t, err)
		assert.Equal(t, []loop.Block{{Type: loop.BlockText, Text: "ok"}}, got)
		assert.Equal(t, loop.StopEndTurn, resp.StopReason)
		assert.Equal(t, 1234, resp.Usage.InputTokens, "the server answered with the loop's count")
		require.Len(t, script.Requests, 1)
		seen := script.Requests[0]
		assert.Equal(t, 1234, seen.InputTokens)
		assert.Equal(t, []string{"Read", "Bash"}, seen.Tools)
		assert.Equal(t, nonStreaming, seen.NonStreaming)
		want := history()
		want[2].Blocks[1].IsError = false
		require.Len(t, seen.Messages, len(want))
		for i := range want {
			assert.Equal(t, want[i].Role, seen.Messages[i].Role, "message %d", i)
			assert.Equal(t, want[i].Blocks, seen.Messages[i].Blocks, "message %d", i)
		}
	}
}

// Each fault reaches the loop as its kind, with the loop's status, the
// API's message and the retry-after, streamed and not.
func TestFaultsBecomeRequestErrors(t *testing.T) {
	cases := []struct {
		step   fakemodel.Step
		kind   loop.ErrorKind
		status int
		retry  int
		blocks int
	}{
		{fakemodel.Step{Kind: fakemodel.PromptTooLong}, loop.KindPromptTooLong, 400, 0, 0},
		{fakemodel.Step{Kind: fakemodel.RequestTooLarge}, loop.KindRequestTooLarge, 413, 0, 0},
		{fakemodel.Step{Kind: fakemodel.MediaTooLarge}, loop.KindMediaTooLarge, 400, 0, 0},
		{fakemodel.Step{Kind: fakemodel.InvalidRequest}, loop.KindInvalidRequest, 400, 0, 0},
		{fakemodel.Step{Kind: fakemodel.RateLimited, RetryAfterMS: 2500}, loop.KindRateLimited, 429, 2500, 0},
		{fakemodel.Step{Kind: fakemodel.Overloaded}, loop.KindOverloaded, 529, 0, 0},
		{fakemodel.Step{Kind: fakemodel.ServerError, Status: 502}, loop.KindServer, 502, 0, 0},
		{fakemodel.Step{Kind: fakemodel.OtherStatus, Status: 401}, loop.KindOther, 401, 0, 0},
		{fakemodel.Step{Kind: fakemodel.ConnectionDropped}, loop.KindConnection, 0, 0, 0},
	}
	for _, c := range cases {
		for _, nonStreaming := range []bool{false, true} {
			name := string(c.kind)
			if nonStreaming {
				name += "/non-streaming"
			}
			t.Run(name, func(t *testing.T) {
				m, _ := serve(t, wire.Options{}, c.step)
				var got []loop.Block
				_, err := m.Stream(context.Background(), request(nonStreaming), func(b loop.Block) { got = append(got, b) })
				var re *loop.RequestError
				require.True(t, errors.As(err, &re), "got %v", err)
				assert.Equal(t, c.kind, re.Kind)
				assert.Equal(t, c.status, re.Status)
				assert.Equal(t, c.retry, re.RetryAfterMS)
				assert.NotEmpty(t, re.Message)
				assert.Len(t, got, c.blocks)
			})
		}
	}
}

func request(nonStreaming bool) loop.Request {
	return loop.Request{Purpose: loop.PurposeMain, Model: "gpt-test", MaxTokens: 1000, InputTokens: 5000,
		Messages: []loop.Message{loop.UserText("go")}, NonStreaming: nonStreaming}
}

// In a stream: a prompt too long is response.failed and reads as the
// script wrote it; a stream error after a block hands that block first;
// a dropped connection after a block is a connection failure; a tool
// call the stream cut is never handed over.
func TestStreamFailures(t *testing.T) {
	cases := []struct {
		name   string
		step   fakemodel.Step
		kind   loop.ErrorKind
		blocks int
		msg    string
	}{
		{"prompt too long", fakemodel.Step{Kind: fakemodel.PromptTooLong}, loop.KindPromptTooLong, 0, "prompt is too long: 5000 tokens > 200000 maximum"},
		{"stream error after a block", fakemodel.Step{Kind: fakemodel.StreamError, Text: "partial", After: 1}, loop.KindStream, 1, ""},
		{"stream error in a tool call", fakemodel.Step{Kind: fakemodel.StreamError, Text: "partial",
			ToolUses: []fakemodel.ToolUse{{Name: "Bash", Input: `{"cmd":"l`}}, After: 2}, loop.KindStream, 1, ""},
		{"overload after a block", fakemodel.Step{Kind: fakemodel.FallbackTriggered, Text: "partial", After: 1}, loop.KindOverloaded, 1, ""},
		{"dropped after a block", fakemodel.Step{Kind: fakemodel.ConnectionDropped, Text: "partial", After: 1}, loop.KindConnection, 1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _ := serve(t, wire.Options{}, c.step)
			var got []loop.Block
			_, err := m.Stream(context.Background(), request(false), func(b loop.Block) { got = append(got, b) })
			var re *loop.RequestError
			require.True(t, errors.As(err, &re), "got %v", err)
			assert.Equal(t, c.kind, re.Kind)
			want := c.kind.Status()
			if c.kind == loop.KindConnection && c.blocks > 0 {
				want = loop.StatusStreamBegun // the response had begun
			}
			assert.Equal(t, want, re.Status)
			assert.Len(t, got, c.blocks)
			if c.msg != "" {
				assert.Equal(t, c.msg, re.Message)
			}
		})
	}
}

// Replies: the stop reason is read from the response (incomplete at the
// cap, a function call, else end of turn), a truncated tool call keeps
// its cut arguments, usage splits the cached tokens out.
func TestReplies(t *testing.T) {
	cases := []struct {
		name  string
		step  fakemodel.Step
		stop  loop.StopReason
		types []loop.BlockType
	}{
		{"text", fakemodel.Step{Thinking: "hm", Text: "hi"}, loop.StopEndTurn, []loop.BlockType{loop.BlockThinking, loop.BlockText}},
		{"tool", fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}}, loop.StopToolUse, []loop.BlockType{loop.BlockToolUse}},
		{"empty", fakemodel.Step{Kind: fakemodel.Empty}, loop.StopEndTurn, nil},
		{"truncated", fakemodel.Step{Kind: fakemodel.Truncated, Text: "cut",
			ToolUses: []fakemodel.ToolUse{{Name: "Bash", Input: `{"cmd":"go test ./..."}`}}}, loop.StopMaxTokens, []loop.BlockType{loop.BlockText, loop.BlockToolUse}},
	}
	for _, c := range cases {
		for _, nonStreaming := range []bool{false, true} {
			t.Run(c.name, func(t *testing.T) {
				m, _ := serve(t, wire.Options{}, c.step)
				var got []loop.Block
				resp, err := m.Stream(context.Background(), request(nonStreaming), func(b loop.Block) { got = append(got, b) })
				require.NoError(t, err)
				assert.Equal(t, c.stop, resp.StopReason)
				var types []loop.BlockType
				for _, b := range got {
					types = append(types, b.Type)
				}
				assert.Equal(t, c.types, types)
				assert.Equal(t, 5000, resp.Usage.InputTokens)
				if c.name == "truncated" {
					assert.False(t, validJSON(got[1].Input), "the cut arguments as they came: %s", got[1].Input)
					assert.Equal(t, 1000, resp.Usage.OutputTokens, "output at the cap")
				}
			})
		}
	}
}

func validJSON(s string) bool {
	var v any
	return jsonUnmarshal(s, &v) == nil
}

// New refuses a config it cannot use.
func TestNewRefusesBadConfig(t *testing.T) {
	_, err := responses.New(responses.Config{})
	assert.ErrorContains(t, err, "APIKey")
	_, err = responses.New(responses.Config{APIKey: "k", NonStreamingTimeout: -1})
	assert.ErrorContains(t, err, "negative")
}
