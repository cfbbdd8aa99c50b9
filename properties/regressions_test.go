package properties

import (
	"runtime"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests reproduce loop bugs the property tests found; the loop has
// fixed them (361a429) and they keep them fixed.

// TestRegressionAutoCompactBoundaryRecorded: an auto-compact's boundary
// message left the history without being recorded. Input: claude-code,
// a reply reporting an input over the auto-compact threshold, then a
// plain answer. Expected: every message that leaves is in a Removed list.
// It was: the boundary (m3) was made and dropped in the same iteration.
func TestRegressionAutoCompactBoundaryRecorded(t *testing.T) {
	p := loop.ClaudeCode()
	primary := loop.ModelInfo{Name: primaryName, ContextWindow: 200_000, MaxOutputTokens: 64_000}
	c := Case{Policy: p, Primary: primary, Compactions: []fakemodel.CompactOutcome{{}},
		Initial: historyOf(2),
		Script: []fakemodel.Step{
			{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}, InputTokens: p.Limits(primary).AutoCompactThreshold + 1},
			{Text: "done"},
		}}
	r, err := c.Execute()
	require.NoError(t, err)
	autos := 0
	for _, e := range r.Result.Trace {
		if x, ok := e.(loop.Compaction); ok && x.OK && x.Trigger == loop.TriggerAuto {
			autos++
		}
	}
	require.Equal(t, 1, autos, "the reproducer no longer auto-compacts: fix the reproducer\n%v", r.Result.Trace)
	vs, err := CheckOne("nothing_lost", r)
	require.NoError(t, err)
	assert.Empty(t, vs, "the auto-compact boundary leaves the history unrecorded")
}

// TestRegressionConcurrentAbortDeterministic: a tool that aborts inside
// a group of concurrency-safe calls made the trace depend on scheduling.
// Input: one reply with tool uses Bash and three Reads, all
// concurrency-safe, Bash aborting; GOMAXPROCS 4. Expected (docs/spec.md §5,
// determinism): the same trace every run. It was: a Read sometimes ran
// and sometimes was answered "interrupted" (it started after the
// cancel): 8 different traces in 200 runs.
func TestRegressionConcurrentAbortDeterministic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	c := Case{Policy: loop.ClaudeCode(), Primary: loop.ModelInfo{Name: primaryName, ContextWindow: 200_000, MaxOutputTokens: 64_000},
		Initial: historyOf(0),
		Script:  []fakemodel.Step{{ToolUses: []fakemodel.ToolUse{{Name: "Bash"}, {Name: "Read"}, {Name: "Read"}, {Name: "Read"}}}},
		Tools: ToolBehaviour{Default: fakemodel.Tool{Concurrent: true},
			ByName: map[string]fakemodel.Tool{"Bash": {Abort: true, Concurrent: true}}}}
	traces := map[string]bool{}
	for range 200 {
		r, err := c.Execute()
		require.NoError(t, err)
		b, err := traceBytes(r.Result)
		require.NoError(t, err)
		traces[string(b)] = true
	}
	assert.LessOrEqual(t, len(traces), 1, "an abort inside a concurrent tool group gave different traces in 200 runs")
}
