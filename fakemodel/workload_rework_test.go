package fakemodel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// TestCompactionRework: each compaction adds the drawn number of
// tool-calling replies; with the rework off nothing is drawn, so the
// session is the one a workload without the parameter plays.
func TestCompactionRework(t *testing.T) {
	mainReplies := func(res *loop.Result) (replies, compactions int) {
		for _, e := range res.Trace {
			switch x := e.(type) {
			case loop.ResponseEvent:
				if x.Purpose == loop.PurposeMain {
					replies++
				}
			case loop.Compaction:
				if x.OK {
					compactions++
				}
			}
		}
		return replies, compactions
	}
	w := calm(400)
	w.ToolResult = LogNormal{Median: 2_000, Sigma: 0, Min: 1, Max: 2_000}
	off := w
	off.CompactionRework = Geometric{}
	five := w
	five.CompactionRework = Geometric{Min: 5, Mean: 5, Max: 5}
	seeds := Seeds{Workload: 3, Faults: 4}
	r0, c0 := mainReplies(runEpisode(t, off, loop.ClaudeCode(), seeds))
	r5, c5 := mainReplies(runEpisode(t, five, loop.ClaudeCode(), seeds))
	require.Positive(t, c0, "the session must compact for the test to mean something")
	assert.Equal(t, 400, r0)
	assert.Equal(t, 400+5*c5, r5)

	zero := w
	zero.CompactionRework = Geometric{Min: 0, Mean: 0, Max: 50}
	assert.Equal(t, runEpisode(t, off, loop.ClaudeCode(), seeds).Trace, runEpisode(t, zero, loop.ClaudeCode(), seeds).Trace)
}

func TestCompactionReworkValidated(t *testing.T) {
	_, err := DefaultWorkload().With("compaction_rework.mean", "-1")
	assert.ErrorContains(t, err, "compaction_rework")
}
