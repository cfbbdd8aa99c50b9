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

// runEndless runs the seed (no stop-hook block cap) against a stop hook
// that blocks DefaultIterationLimit times, so that without a limit the
// run would complete at iteration DefaultIterationLimit+1.
func runEndless(t *testing.T, limit int, summarizer loop.ToolUseSummarizer, first ...fakemodel.Step) *loop.Result {
	t.Helper()
	script := append(first, fakemodel.Step{Text: "ok", OutputTokens: 5, Repeat: fakemodel.Forever})
	cfg := loop.Config{Policy: loop.Seed(), Model: &fakemodel.Model{Script: script}, Primary: sonnet, Tools: &fakemodel.Tools{},
		StopHooks: &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Block: "again", Times: loop.DefaultIterationLimit}, {}}}, Summarizer: summarizer,
		IterationLimit: limit, DiscardTrace: limit == 0}
	res, err := loop.Run(context.Background(), cfg, []loop.Message{loop.UserText("go")})
	require.NoError(t, err)
	return res
}

// The harness's iteration limit halts a run that never ends before the
// iteration after the limit: no terminal, a notice saying so.
func TestIterationLimitHalts(t *testing.T) {
	for _, limit := range []int{1, 3} {
		res := runEndless(t, limit, nil)
		assert.True(t, res.Halted, "limit %d", limit)
		assert.Empty(t, res.Terminal)
		assert.Equal(t, limit, res.Stats.Iterations)
		assert.Empty(t, res.Trace.Terminal())
		notices := events[loop.Notice](res.Trace)
		require.NotEmpty(t, notices)
		assert.Equal(t, fmt.Sprintf("halted by the harness: iteration limit %d reached without a terminal", limit), notices[len(notices)-1].Text)
	}
}

// A zero limit is DefaultIterationLimit.
func TestIterationLimitDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 10,000 iterations")
	}
	res := runEndless(t, 0, nil)
	assert.True(t, res.Halted)
	assert.Equal(t, loop.DefaultIterationLimit, res.Stats.Iterations)
}

// A run halted with a tool-use summary still pending records the summary
// as unsent: no summary vanishes without an event.
func TestIterationLimitSettlesThePendingSummary(t *testing.T) {
	res := runEndless(t, 1, &fakemodel.Summarizer{}, toolStep)
	require.True(t, res.Halted)
	assert.Equal(t, []loop.Transition{loop.NextTurn}, res.Trace.Transitions())
	sums := events[loop.ToolSummary](res.Trace)
	require.Len(t, sums, 1)
	assert.True(t, sums[0].Unsent, "summary %+v", sums[0])
	assert.Nil(t, res.State.PendingToolUseSummary)
}
