package properties

import (
	"runtime"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestDeterminism runs each generated case twice, once with GOMAXPROCS 1
// and once with 4, and requires byte-identical JSON Lines traces (docs/spec.md
// §5, determinism): concurrency-safe tools run in goroutines, the
// tool-use summary in the background.
func TestDeterminism(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	profiles := []loop.Policy{loop.Seed(), loop.ClaudeCode()}
	rapid.Check(t, func(rt *rapid.T) {
		for i := range casesPerCheck / 5 {
			p := rapid.SampledFrom(profiles).Draw(rt, "profile")
			c := CaseGen(p).Draw(rt, "case "+itoa(i))
			procs := []int{1, 4}
			err := CheckDeterminism(func() *loop.Result {
				runtime.GOMAXPROCS(procs[0])
				procs = procs[1:]
				r, err := c.Execute()
				if err != nil {
					rt.Fatalf("%v\n%s", err, c)
				}
				return r.Result
			})
			if err != nil {
				rt.Fatalf("%v\n%s", err, c)
			}
		}
	})
}

// TestCheckDeterminismReportsTheFirstDifference feeds CheckDeterminism
// two runs that differ.
func TestCheckDeterminismReportsTheFirstDifference(t *testing.T) {
	calls := 0
	err := CheckDeterminism(func() *loop.Result {
		calls++
		tr := loop.Trace{loop.IterationStart{Iteration: 1, Turn: 1}, loop.TerminalEvent{Terminal: loop.Completed, Turn: 1, Iterations: 1}}
		if calls == 2 {
			tr[1] = loop.TerminalEvent{Terminal: loop.MaxTurns, Turn: 1, Iterations: 1}
		}
		return &loop.Result{Trace: tr}
	})
	require.ErrorContains(t, err, "line 2", "the difference is at line 2")
	require.ErrorContains(t, err, "max_turns")
	require.Error(t, CheckDeterminism(func() *loop.Result { return nil }), "a run without a result passes")
	same := func() *loop.Result { return &loop.Result{Trace: loop.Trace{loop.Notice{Text: "x"}}} }
	require.NoError(t, CheckDeterminism(same))
}
