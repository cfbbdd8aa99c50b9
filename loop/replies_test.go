package loop_test

import (
	"context"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Replies the loop does not take as they are: malformed tool use, empty
// replies, a failed request's partial reply.

// One malformed-tool-use retry: the first malformed reply is re-asked,
// the second ends the run.
func TestOneMalformedToolUseRetry(t *testing.T) {
	mal := fakemodel.Step{Kind: fakemodel.MalformedToolUse}
	ok, _ := ccRun(t, fixture{script: []fakemodel.Step{mal, textStep}}, "malformed_tool_use_retries", "1")
	checkSeq(t, ok, "M:tool → malformed_tool_use_retry → M:text", loop.Completed)
	bad, _ := ccRun(t, fixture{script: []fakemodel.Step{mal, mal, textStep}}, "malformed_tool_use_retries", "1")
	checkSeq(t, bad, "M:tool → malformed_tool_use_retry → M:tool", loop.MalformedToolUseExhausted)
}

// A reply whose only block is an empty text block is an empty reply.
func TestEmptyTextBlockIsAnEmptyReply(t *testing.T) {
	calls := 0
	model := modelFunc(func(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
		calls++
		text := ""
		if calls > 1 {
			text = "done"
		}
		yield(loop.Block{Type: loop.BlockText, Text: text})
		return loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{InputTokens: 10, OutputTokens: 1}}, nil
	})
	res, err := loop.Run(context.Background(), loop.Config{Policy: cc(t), Model: model, Primary: opus, Tools: &fakemodel.Tools{}},
		[]loop.Message{loop.UserText("go")})
	require.NoError(t, err)
	checkSeq(t, res, "M:text → empty_reply_retry → M:text", loop.Completed)
}

// A request that fails after streaming a tool_use keeps the partial
// reply, answers its tool_use with a synthetic error result, and shows the
// error.
func TestFailedRequestAnswersTheToolUseItStreamed(t *testing.T) {
	step := fakemodel.Step{Kind: fakemodel.StreamError, After: 2, Text: "reading", ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"path":"a.go"}`}}}
	res, _ := run(t, fixture{script: []fakemodel.Step{step}})
	require.Equal(t, loop.Completed, res.Terminal, "the seed completes after an API error")
	msgs := res.State.Messages
	require.Len(t, msgs, 4, "prompt, partial reply, synthetic results, API error")
	assert.Len(t, msgs[1].ToolUses(), 1)
	require.Len(t, msgs[2].Blocks, 1)
	assert.Equal(t, loop.ModelErrorResult, msgs[2].Blocks[0].Text)
	assert.True(t, msgs[2].Blocks[0].IsError)
	assert.True(t, msgs[3].APIError)
	assert.Equal(t, []loop.ErrorEmitted{{Message: msgs[3].Text()}}, events[loop.ErrorEmitted](res.Trace), "the error shown is recorded")
	results := events[loop.ToolResultEvent](res.Trace)
	require.Len(t, results, 1)
	assert.True(t, results[0].Synthetic)
}
