package loop_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tool_use with an empty input counts as {}: the tool runs with it,
// however many other inputs came before it.
func TestEmptyToolInputRuns(t *testing.T) {
	calls := 0
	model := modelFunc(func(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
		calls++
		if calls == 1 {
			for i := 1; i <= 9; i++ {
				yield(loop.Block{Type: loop.BlockToolUse, ID: fmt.Sprintf("toolu_%d", i), Name: "Read", Input: fmt.Sprintf(`{"path":"%d.go"}`, i)})
			}
			yield(loop.Block{Type: loop.BlockToolUse, ID: "toolu_empty", Name: "Read", Input: ""})
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
	ids := tools.CallIDs()
	require.Len(t, ids, 10, "every call ran")
	assert.Equal(t, "toolu_empty", ids[9])
	for _, r := range events[loop.ToolResultEvent](res.Trace) {
		assert.False(t, r.IsError, "result %+v", r)
	}
}
