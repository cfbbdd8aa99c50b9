package fakemodel

import (
	"context"
	"fmt"
	"math"
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

// TestCompactionReworkMean: after a compaction the agent makes the drawn
// number of extra tool-calling replies before it answers, a count whose
// mean is the distribution's Mean; a summary already seen adds nothing.
// The tolerance is five standard errors (a geometric count above Min with
// mean m has variance m(1+m)).
func TestCompactionReworkMean(t *testing.T) {
	summary := loop.Message{ID: "s", Role: loop.RoleUser, CompactSummary: true,
		Blocks: []loop.Block{{Type: loop.BlockText, Text: "summary"}}}
	extra := func(d Geometric, seed uint64) int {
		w := fixed(1, 200, 20_000)
		w.CompactionRework = d
		e := w.Episode(Seeds{Workload: seed, Faults: seed}, 200_000, func() {})
		msgs := []loop.Message{summary}
		for n := 0; ; n++ {
			msgs = append(msgs, loop.Message{ID: fmt.Sprint("m", n), Role: loop.RoleUser,
				Blocks: []loop.Block{{Type: loop.BlockText, Text: "go on"}}})
			resp, err := e.Stream(context.Background(), loop.Request{Purpose: loop.PurposeMain, MaxTokens: 8_000, InputTokens: 30_000,
				Messages: msgs}, func(loop.Block) {})
			require.NoError(t, err)
			if resp.StopReason == loop.StopEndTurn {
				return n
			}
			require.Equal(t, loop.StopToolUse, resp.StopReason, "%+v", d)
			require.Less(t, n, d.Max, "%+v: more extra replies than Max", d)
		}
	}
	const n = 2_000
	for _, d := range []Geometric{{Min: 0, Mean: 0.5, Max: 50}, {Min: 0, Mean: 3, Max: 50}, {Min: 2, Mean: 2, Max: 2}, {Min: 1, Mean: 2, Max: 50}, {}} {
		sum := 0
		for s := range uint64(n) {
			sum += extra(d, s)
		}
		m := d.Mean - float64(d.Min)
		assert.InDelta(t, d.Mean, float64(sum)/n, 5*math.Sqrt(m*(1+m)/n)+1e-9, "%+v: mean extra replies", d)
	}
}
