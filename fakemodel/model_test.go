package fakemodel

import (
	"context"
	"errors"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReply(t *testing.T) {
	m := &Model{Script: []Step{
		{Thinking: "hmm", Text: "I'll read", ToolUses: []ToolUse{{Name: "Read", Input: `{"p":1}`}, {Name: "Grep"}}},
		{Text: "done", OutputTokens: 42, InputTokens: 7},
	}}
	blocks, resp, err := stream(t, m, req(100))
	require.NoError(t, err)
	want := []loop.Block{
		{Type: loop.BlockThinking, Text: "hmm"},
		{Type: loop.BlockText, Text: "I'll read"},
		{Type: loop.BlockToolUse, ID: "toolu_1_1", Name: "Read", Input: `{"p":1}`},
		{Type: loop.BlockToolUse, ID: "toolu_1_2", Name: "Grep", Input: "{}"},
	}
	assert.Equal(t, want, blocks, "blocks")
	assert.Equal(t, loop.StopToolUse, resp.StopReason, "resp %+v", resp)
	assert.Equal(t, 100, resp.Usage.InputTokens, "resp %+v", resp)
	assert.Positive(t, resp.Usage.OutputTokens, "an estimated output: resp %+v", resp)
	blocks, resp, err = stream(t, m, req(100))
	assert.NoError(t, err, "second reply")
	assert.Len(t, blocks, 1, "second reply")
	assert.Equal(t, loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{InputTokens: 7, OutputTokens: 42}}, resp, "second reply")
	assert.True(t, m.Done(), "Done() after every step")
}

func TestRepeatAndUniqueIDs(t *testing.T) {
	m := &Model{Script: []Step{
		{ToolUses: []ToolUse{{Name: "Read"}}, Repeat: 3},
		{Text: "again", Repeat: Forever},
	}}
	seen := map[string]bool{}
	for i := range 3 {
		blocks, resp, err := stream(t, m, req(10))
		require.NoError(t, err, "request %d", i+1)
		require.Equal(t, loop.StopToolUse, resp.StopReason, "request %d: %+v", i+1, resp)
		require.False(t, seen[blocks[0].ID], "duplicate id %q", blocks[0].ID)
		seen[blocks[0].ID] = true
	}
	assert.False(t, m.Done(), "Done() before the forever step was reached")
	for range 50 {
		blocks, _, err := stream(t, m, req(10))
		require.NoError(t, err, "forever step")
		require.Equal(t, "again", blocks[0].Text, "forever step: %v", blocks)
	}
	assert.True(t, m.Done(), "Done() at a forever step")
}

func TestExhausted(t *testing.T) {
	m := &Model{Script: []Step{{Text: "only"}}}
	stream(t, m, req(1))
	r := req(1)
	r.Purpose = loop.PurposeCompact
	_, _, err := stream(t, m, r)
	var ex *ExhaustedError
	require.ErrorAs(t, err, &ex)
	require.Equal(t, ExhaustedError{Request: 2, Purpose: loop.PurposeCompact, ScriptLen: 1}, *ex, "want an ExhaustedError for request 2")
	var re *loop.RequestError
	assert.False(t, errors.As(err, &re), "an exhausted script must not look like an API error")
	assert.ErrorContains(t, err, "request 2 (compact)", "the message names the request")
	// an empty script
	_, _, err = stream(t, &Model{}, req(1))
	assert.ErrorAs(t, err, &ex, "empty script")
}

func TestInvalidStep(t *testing.T) {
	m := &Model{Script: []Step{{Text: "ok"}, {ToolUses: []ToolUse{{ID: "x"}}}}}
	stream(t, m, req(1))
	_, _, err := stream(t, m, req(1))
	var se *StepError
	require.ErrorAs(t, err, &se)
	require.Equal(t, 1, se.Step, "want a StepError for step 1")
	require.ErrorContains(t, err, "script step 1: tool_uses[0] has no name")
}

func TestRecordsRequests(t *testing.T) {
	m := &Model{Script: []Step{{Text: "a", Repeat: 2}}, KeepMessages: true}
	r := req(5)
	stream(t, m, r)
	r.Messages[0] = loop.UserText("changed") // the loop would not, but the record is a copy
	stream(t, m, req(6))
	require.Len(t, m.Requests, 2)
	require.Equal(t, "hi", m.Requests[0].Messages[0].Text(), "the record is a copy")
	require.Equal(t, 6, m.Requests[1].InputTokens)
}

func TestFaults(t *testing.T) {
	for _, tc := range []struct {
		step   Step
		kind   loop.ErrorKind
		status int
	}{
		{Step{Kind: PromptTooLong}, loop.KindPromptTooLong, 400},
		{Step{Kind: RequestTooLarge}, loop.KindRequestTooLarge, 413},
		{Step{Kind: MediaTooLarge}, loop.KindMediaTooLarge, 400},
		{Step{Kind: ImageSize}, loop.KindImageSize, 0},
		{Step{Kind: Overloaded}, loop.KindOverloaded, 529},
		{Step{Kind: FallbackTriggered}, loop.KindFallbackTriggered, 529},
		{Step{Kind: RateLimited, RetryAfterMS: 1500}, loop.KindRateLimited, 429},
		{Step{Kind: ServerError}, loop.KindServer, 500},
		{Step{Kind: ServerError, Status: 503}, loop.KindServer, 503},
		{Step{Kind: ConnectionDropped}, loop.KindConnection, 0},
		{Step{Kind: InvalidRequest, Message: "bad shape"}, loop.KindInvalidRequest, 400},
		{Step{Kind: OtherStatus, Status: 404}, loop.KindOther, 404},
		{Step{Kind: StreamError}, loop.KindStream, 0},
	} {
		t.Run(string(tc.step.Kind), func(t *testing.T) {
			m := &Model{Window: 1000, Script: []Step{tc.step}}
			blocks, _, err := stream(t, m, req(1200))
			var re *loop.RequestError
			require.ErrorAs(t, err, &re)
			require.Equal(t, tc.kind, re.Kind, "err %#v", err)
			require.Equal(t, tc.status, re.Status, "err %#v", err)
			require.NotEmpty(t, re.Message, "err %#v", err)
			assert.Empty(t, blocks, "yielded before the fault")
			assert.Equal(t, tc.step.RetryAfterMS, re.RetryAfterMS, "retry-after")
			if tc.step.Message != "" {
				assert.Equal(t, tc.step.Message, re.Message, "message")
			}
		})
	}
}

func TestPromptTooLongMessage(t *testing.T) {
	for _, tc := range []struct {
		window int
		step   Step
		input  int
		want   string
	}{
		{200000, Step{Kind: PromptTooLong}, 210000, "prompt is too long: 210000 tokens > 200000 maximum"},
		{200000, Step{Kind: PromptTooLong, Maximum: 100000}, 150000, "prompt is too long: 150000 tokens > 100000 maximum"},
		{200000, Step{Kind: PromptTooLong, InputTokens: 250000}, 5, "prompt is too long: 250000 tokens > 200000 maximum"},
		{0, Step{Kind: PromptTooLong}, 500, "prompt is too long: 500 tokens > 499 maximum"},
	} {
		m := &Model{Window: tc.window, Script: []Step{tc.step}}
		_, _, err := stream(t, m, req(tc.input))
		var re *loop.RequestError
		if assert.ErrorAs(t, err, &re, "%+v", tc.step) {
			assert.Equal(t, tc.want, re.Message, "%+v", tc.step)
		}
	}
}

func TestTruncated(t *testing.T) {
	m := &Model{Script: []Step{
		{Kind: Truncated},
		{Kind: Truncated, Text: "writing", ToolUses: []ToolUse{{Name: "Write", Input: `{"path":"a.go","content":"package a"}`}}},
	}}
	blocks, resp, err := stream(t, m, req(10))
	require.NoError(t, err, "plain truncation")
	require.Len(t, blocks, 1, "plain truncation")
	require.Equal(t, loop.StopMaxTokens, resp.StopReason, "plain truncation: %+v", resp)
	require.Equal(t, 8000, resp.Usage.OutputTokens, "plain truncation: %+v", resp)
	blocks, resp, err = stream(t, m, req(10))
	require.NoError(t, err, "truncated tool use")
	require.Len(t, blocks, 2, "truncated tool use")
	require.Equal(t, loop.StopMaxTokens, resp.StopReason, "truncated tool use: %+v", resp)
	assert.Equal(t, `{"path":"a.go","co`, blocks[1].Input, "cut input")
}

// A truncated step may state its last tool_use's input as the API cut
// it: that input is sent as written, not cut again; a whole one is cut
// in half. Only the last tool_use may be cut.
func TestTruncatedInputStatedCut(t *testing.T) {
	cut := Step{Kind: Truncated, ToolUses: []ToolUse{{Name: "Glob", Input: `{"pattern":"*.go"}`}, {Name: "Glob", Input: `{"pattern":"*.t`}}}
	require.NoError(t, cut.Validate())
	m := &Model{Script: []Step{cut}}
	blocks, resp, err := stream(t, m, req(10))
	require.NoError(t, err)
	require.Len(t, blocks, 2)
	assert.Equal(t, loop.StopMaxTokens, resp.StopReason)
	assert.Equal(t, `{"pattern":"*.go"}`, blocks[0].Input, "an earlier tool_use is whole")
	assert.Equal(t, `{"pattern":"*.t`, blocks[1].Input, "the stated cut, as written")

	early := Step{Kind: Truncated, ToolUses: []ToolUse{{Name: "Glob", Input: `{"pattern":"*.t`}, {Name: "Glob"}}}
	assert.EqualError(t, early.Validate(), `tool_uses[0]: input "{\"pattern\":\"*.t" is not a JSON object`, "only the last tool_use can be cut")
	reply := Step{ToolUses: []ToolUse{{Name: "Glob", Input: `{"pattern":"*.t`}}}
	assert.Error(t, reply.Validate(), "a whole reply's input is whole")
}

func TestEmptyAndMalformed(t *testing.T) {
	m := &Model{Script: []Step{{Kind: Empty}, {Kind: MalformedToolUse}}}
	blocks, resp, err := stream(t, m, req(10))
	assert.NoError(t, err, "empty")
	assert.Empty(t, blocks, "empty")
	assert.Equal(t, loop.StopEndTurn, resp.StopReason, "empty: %+v", resp)
	assert.Zero(t, resp.Usage.OutputTokens, "empty: %+v", resp)
	blocks, resp, err = stream(t, m, req(10))
	require.NoError(t, err, "malformed")
	require.Equal(t, loop.StopToolUse, resp.StopReason, "malformed: %+v", resp)
	for _, b := range blocks {
		assert.NotEqual(t, loop.BlockToolUse, b.Type, "malformed tool use yielded a tool_use: %+v", b)
	}
}

func TestStreamErrorAfterK(t *testing.T) {
	m := &Model{Script: []Step{{Kind: StreamError, Text: "part", After: 3}, {Kind: StreamError, Text: "a", ToolUses: []ToolUse{{Name: "R"}}, After: 1}}}
	blocks, _, err := stream(t, m, req(10))
	var re *loop.RequestError
	require.ErrorAs(t, err, &re)
	require.Equal(t, loop.KindStream, re.Kind)
	require.Len(t, blocks, 3)
	require.Equal(t, "part", blocks[0].Text)
	require.Equal(t, "chunk 3", blocks[2].Text)
	blocks, _, _ = stream(t, m, req(10))
	if assert.Len(t, blocks, 1, "after 1") {
		assert.Equal(t, "a", blocks[0].Text, "after 1")
	}
}

func TestAbortAfterK(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &Model{Cancel: cancel, Script: []Step{{Kind: Abort, Text: "one", ToolUses: []ToolUse{{Name: "Read"}}, After: 2}}}
	blocks, _, err := streamCtx(t, ctx, m, req(10))
	require.ErrorIs(t, err, context.Canceled)
	require.Len(t, blocks, 2)
	require.Error(t, ctx.Err(), "the step cancelled the context")

	// without Cancel, or with one that cancels something else
	for _, c := range []context.CancelFunc{nil, func() {}} {
		m := &Model{Cancel: c, Script: []Step{{Kind: Abort}}}
		_, _, err := stream(t, m, req(10))
		var se *StepError
		assert.ErrorAs(t, err, &se, "Cancel %v", c != nil)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := &Model{Script: []Step{{Text: "x"}}}
	_, _, err := streamCtx(t, ctx, m, req(1))
	require.ErrorIs(t, err, context.Canceled)
	assert.Len(t, m.Requests, 1, "a cancelled request is recorded")
	assert.False(t, m.Done(), "a cancelled request consumes no step")
	// cancelled mid-stream: no more blocks
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	m = &Model{Script: []Step{{Thinking: "a", Text: "b", ToolUses: []ToolUse{{Name: "c"}}}}}
	n := 0
	_, err = m.Stream(ctx, req(1), func(loop.Block) { n++; cancel() })
	assert.ErrorIs(t, err, context.Canceled, "cancelled mid-stream")
	assert.Equal(t, 1, n, "cancelled mid-stream: blocks")
}

func TestBranches(t *testing.T) {
	m := &Model{Window: 1000, Script: []Step{{
		Repeat: Forever,
		If:     MustCondition("purpose == compact"),
		Then:   &Step{Text: "<summary>s</summary>"},
		Else: &Step{
			If:   MustCondition("input_tokens > window"),
			Then: &Step{Kind: PromptTooLong},
			Else: &Step{If: MustCondition("max_tokens >= 64000"), Then: &Step{Text: "full"}, Else: &Step{Kind: Truncated}},
		},
	}}}
	compact := req(5000)
	compact.Purpose = loop.PurposeCompact
	big := req(100)
	big.MaxTokens = 64000
	for _, tc := range []struct {
		r    loop.Request
		want string
	}{
		{compact, "text <summary>s</summary>"},
		{req(1001), "error prompt_too_long"},
		{req(100), "truncated"},
		{big, "text full"},
	} {
		blocks, resp, err := stream(t, m, tc.r)
		var got string
		var re *loop.RequestError
		switch {
		case errors.As(err, &re):
			got = "error " + string(re.Kind)
		case err != nil:
			got = err.Error()
		case resp.StopReason == loop.StopMaxTokens:
			got = "truncated"
		default:
			got = "text " + blocks[0].Text
		}
		assert.Equal(t, tc.want, got, "%+v", tc.r)
	}
	// window unset: the branch is a step error
	m = &Model{Script: []Step{{If: MustCondition("input_tokens > window"), Then: &Step{Text: "a"}, Else: &Step{Text: "b"}}}}
	var se *StepError
	_, _, err := stream(t, m, req(1))
	assert.ErrorAs(t, err, &se, "want a StepError about the window")
	assert.ErrorContains(t, err, "Window", "want a StepError about the window")
}

// A step cut inside a block (cut_text) yields only its whole blocks; its
// failure unwraps to the request error and carries the cut block.
func TestCutInsideBlock(t *testing.T) {
	m := &Model{Script: []Step{{Kind: ConnectionDropped, Text: "Looking.", After: 1, CutText: "The build"}}}
	blocks, _, err := stream(t, m, req(10))
	require.Len(t, blocks, 1)
	assert.Equal(t, "Looking.", blocks[0].Text)
	var re *loop.RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, loop.KindConnection, re.Kind)
	var cut *CutError
	require.ErrorAs(t, err, &cut)
	assert.Equal(t, loop.Block{Type: loop.BlockText, Text: "The build"}, cut.CutBlock())
	assert.Error(t, Step{Kind: Reply, Text: "x", CutText: "y"}.Validate(), "only a failing stream is cut inside a block")
}
