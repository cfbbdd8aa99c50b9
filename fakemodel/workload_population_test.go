package fakemodel

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"

	"github.com/loopsim/loopsim/loop"
)

// spread is the default workload with every population spread set.
func spread() Workload {
	w := DefaultWorkload()
	w.Population = Population{StartContext: 0.2, Output: 0.6, Replies: 0.8, Tools: 0.5, ToolResult: 0.4}
	return w
}

func traceOf(t *testing.T, w Workload, s Seeds) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, runEpisode(t, w, loop.ClaudeCode(), s).Trace.WriteJSONL(&b))
	return b.Bytes()
}

// TestPopulationDrawsAreAFunctionOfTheSeed: a session's parameters come
// from its session seed only: the same seeds play the same episode, and
// another session seed (the workload and fault seeds kept) another one.
func TestPopulationDrawsAreAFunctionOfTheSeed(t *testing.T) {
	w := spread()
	s := Seeds{Workload: 21, Faults: 22, Session: 23}
	a := traceOf(t, w, s)
	require.True(t, bytes.Equal(a, traceOf(t, w, s)), "the same seeds played two different episodes")
	other := s
	other.Session = 24
	assert.False(t, bytes.Equal(a, traceOf(t, w, other)), "another session seed played the same session")

	x := w.Session(rand.New(rand.NewPCG(5, populationStream)))
	y := w.Session(rand.New(rand.NewPCG(5, populationStream)))
	assert.Empty(t, cmp.Diff(x, y), "one stream drew two different sessions")
	assert.False(t, x.Population.Spread(), "a drawn session keeps a population")
	require.NoError(t, x.Validate())
}

// TestZeroSpreadIsTheWorkload: with no spread every session is the
// workload bit for bit, and the session seed changes nothing.
func TestZeroSpreadIsTheWorkload(t *testing.T) {
	w := DefaultWorkload()
	w.Population = Population{}
	for seed := range uint64(20) {
		assert.Empty(t, cmp.Diff(w, w.Session(rand.New(rand.NewPCG(seed, 1)))), "seed %d", seed)
	}
	a := traceOf(t, w, Seeds{Workload: 3, Faults: 4, Session: 5})
	assert.True(t, bytes.Equal(a, traceOf(t, w, Seeds{Workload: 3, Faults: 4, Session: 6})),
		"with no spread the session seed changed the episode")
}

// TestSessionsSpreadAsTheirPopulation: over many sessions the logarithm
// of each scaled parameter's ratio to the workload's has the population's
// spread, and a mean near 0 (median factor 1).
func TestSessionsSpreadAsTheirPopulation(t *testing.T) {
	w := spread()
	r := rand.New(rand.NewPCG(7, 8))
	const n = 4_000
	logs := map[string][]float64{}
	for range n {
		s := w.Session(r)
		logs["output"] = append(logs["output"], math.Log(s.Output.Median/w.Output.Median))
		logs["replies"] = append(logs["replies"], math.Log(s.Replies.Median/w.Replies.Median))
		logs["tools"] = append(logs["tools"], math.Log((s.Tools.Mean-1)/(w.Tools.Mean-1)))
		logs["tool_result"] = append(logs["tool_result"], math.Log(s.ToolResult.Median/w.ToolResult.Median))
		logs["start_context"] = append(logs["start_context"], math.Log(float64(s.StartContext.Max)/float64(w.StartContext.Max)))
	}
	want := map[string]float64{"output": w.Population.Output, "replies": w.Population.Replies, "tools": w.Population.Tools,
		"tool_result": w.Population.ToolResult, "start_context": w.Population.StartContext}
	for _, name := range []string{"output", "replies", "tools", "tool_result", "start_context"} {
		mean, sd := stat.MeanStdDev(logs[name], nil)
		assert.InDelta(t, want[name], sd, 0.05*want[name], "%s: spread of the log factor", name)
		assert.InDelta(t, 0, mean, 4*want[name]/math.Sqrt(n), "%s: mean of the log factor", name)
	}
}

func TestPopulationIsValidated(t *testing.T) {
	for _, c := range []struct{ path, value string }{
		{"population.output", "-0.1"}, {"population.replies", "3.5"}, {"population.tools", "NaN"},
	} {
		_, err := DefaultWorkload().With(c.path, c.value)
		assert.ErrorContains(t, err, "workload population.", "With(%q, %q)", c.path, c.value)
	}
	w, err := DefaultWorkload().With("population.tool_result", "0.7")
	require.NoError(t, err)
	assert.Equal(t, 0.7, w.Population.ToolResult)
}
