package sim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestModelWorkloads: each model's workload reproduces that model's
// targets (starting context, output per call) kept in the repository,
// and the models differ: one workload for every model could not match
// them all.
func TestModelWorkloads(t *testing.T) {
	tg, err := DefaultTargets()
	require.NoError(t, err)
	checked := map[string]bool{"start context, median": true, "output per call, median": true, "output per call, p90": true}
	medians := map[string]float64{}
	for _, mw := range ModelWorkloads {
		set, ok := tg.Set(mw.Model.Name)
		require.True(t, ok, "no targets for %s", mw.Model.Name)
		assert.Equal(t, set.Calls, mw.Calls, "%s: the targets hold another number of calls than the fit saw: fit again", mw.Model.Name)
		s, err := NewSetting("claude-code")
		require.NoError(t, err)
		s, err = s.With("model", mw.Model.Name)
		require.NoError(t, err)
		sim, err := Calibrate(context.Background(), s, 400, 3, 2)
		require.NoError(t, err)
		n := 0
		for _, r := range CompareTargets(set.Figures, &sim) {
			if !checked[r.Figure] || r.Figure == "start context, median" && mw.StartContext == nil {
				continue
			}
			n++
			assert.True(t, r.OK, "%s: %s simulated %.0f, real %.0f (%+.0f%%, tolerance %.0f%%)", mw.Model.Name, r.Figure, r.Simulated, r.Real, 100*r.Diff(), 100*r.Tolerance)
		}
		assert.GreaterOrEqual(t, n, 2, mw.Model.Name)
		medians[mw.Model.Name] = sim.Output.Quantile(0.5)
	}
	assert.Greater(t, medians["claude-opus-4-5"], 1.5*medians["claude-opus-4-6"], "output differs by model")
}

func TestWithModelNamed(t *testing.T) {
	s, err := NewSetting("claude-code")
	require.NoError(t, err)
	codex, err := s.With("model", "gpt-5.3-codex")
	require.NoError(t, err)
	assert.Equal(t, 258_400, codex.Model.ContextWindow)
	assert.Equal(t, 16_293, codex.Workload.StartContext.Min)
	haiku, err := s.With("model", "claude-haiku-4-5")
	require.NoError(t, err)
	assert.Equal(t, s.Workload.StartContext, haiku.Workload.StartContext, "no haiku session starts: pooled start")
	assert.InDelta(t, 217, haiku.Workload.Output.Median, 1e-9)
	own := s.WithWorkloadFile("w.json", WorkloadFile{Workload: s.Workload})
	own, err = own.With("model", "claude-opus-4-5")
	require.NoError(t, err)
	assert.Equal(t, s.Workload.Output, own.Workload.Output, "a workload file is not overridden")
	_, err = s.With("model", "no-such-model")
	assert.ErrorContains(t, err, "fitted on transcripts: claude-opus-4-6")
}
