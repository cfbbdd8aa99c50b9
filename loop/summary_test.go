package loop_test

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tool-use summary is made when the policy asks for one and a
// summarizer is configured, and only then.
func TestToolUseSummaryNeedsThePolicyAndASummarizer(t *testing.T) {
	require.True(t, loop.Seed().ToolUseSummary, "the seed summarises tool batches")
	for _, c := range []struct {
		name       string
		policy     loop.Policy
		summarizer bool
		want       int
	}{
		{"policy and summarizer", loop.Seed(), true, 1},
		{"no summarizer", loop.Seed(), false, 0},
		{"the policy says no", seedWith(t, "tool_use_summary", "false"), true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := fixture{policy: c.policy, script: []fakemodel.Step{toolStep, textStep}}
			var sum *fakemodel.Summarizer
			if c.summarizer {
				sum = &fakemodel.Summarizer{}
				f.summary = sum
			}
			res, _ := run(t, f)
			require.Equal(t, loop.Completed, res.Terminal)
			summaries := events[loop.ToolSummary](res.Trace)
			assert.Len(t, summaries, c.want, "summary events")
			for _, s := range summaries {
				assert.Empty(t, s.Error, "summary %+v", s)
			}
			pending := 0
			for _, st := range events[loop.StateRecord](res.Trace) {
				if st.PendingToolUseSummary != nil {
					pending++
				}
			}
			assert.Equal(t, c.want, pending, "state records with a summary pending")
			if sum != nil {
				assert.Len(t, sum.Calls, c.want, "summarizer calls")
			}
		})
	}
}

// yieldingSummarizer takes a while (it yields the processor many times)
// and then records that it returned.
type yieldingSummarizer struct {
	returned atomic.Bool
}

func (y *yieldingSummarizer) Summarize(ctx context.Context, calls []loop.ToolCall, results []loop.Message) (string, error) {
	for range 1_000 {
		runtime.Gosched()
	}
	y.returned.Store(true)
	return "read a file", nil
}

// A run that ends with a summary still being made waits for it: when Run
// returns, the summarizer has returned (no goroutine outlives the run),
// and the summary is recorded as unsent.
func TestRunWaitsForThePendingSummary(t *testing.T) {
	sum := &yieldingSummarizer{}
	res, _ := run(t, fixture{policy: seedWith(t, "max_turns", "1"), script: []fakemodel.Step{toolStep}, summary: sum})
	require.Equal(t, loop.MaxTurns, res.Terminal)
	assert.True(t, sum.returned.Load(), "the summarizer was still running when Run returned")
	sums := events[loop.ToolSummary](res.Trace)
	require.Len(t, sums, 1)
	assert.True(t, sums[0].Unsent)
}
