package loop_test

import (
	"context"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tool_use with an empty input counts as {}: the tool runs with it.
func TestEmptyToolInputRuns(t *testing.T) {
	calls := 0
	model := modelFunc(func(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
		calls++
		if calls == 1 {
			yield(loop.Block{Type: loop.BlockToolUse, ID: "toolu_1", Name: "Read", Input: ""})
			return loop.Response{StopReason: loop.StopToolUse, Usage: loop.Usage{InputTokens: 10, OutputTokens: 5}}, nil
		}
		yield(text("done")[0])
		return loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{InputTokens: 20, OutputTokens: 5}}, nil
	})
	tools := &fakemodel.Tools{}
	res, err := loop.Run(context.Background(), loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet, Tools: tools},
		[]loop.Message{loop.UserText("go")})
	require.NoError(t, err)
	assert.Equal(t, loop.Completed, res.Terminal)
	assert.Equal(t, []string{"toolu_1"}, tools.CallIDs(), "the tool ran")
	r := events[loop.ToolResultEvent](res.Trace)
	require.Len(t, r, 1)
	assert.False(t, r[0].IsError, "result %+v", r[0])
}
