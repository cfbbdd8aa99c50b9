package sim

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
)

// TestFitRecoversAKnownWorkload: figures measured on a simulation of a
// workload unlike the default one fit back to that workload's
// parameters.
func TestFitRecoversAKnownWorkload(t *testing.T) {
	truth, err := NewSetting("claude-code")
	require.NoError(t, err)
	w := &truth.Workload
	w.Population = fakemodel.Population{} // one user: the fit's one-user path
	w.StartContext = fakemodel.Uniform{Min: 8_000, Max: 10_000}
	w.Output = fakemodel.LogNormal{Median: 450, Sigma: 0.7, Min: 1, Max: 1_000_000}
	w.ToolResult = fakemodel.LogNormal{Median: 900, Sigma: 1.2, Min: 5, Max: 25_000}
	w.Replies = fakemodel.LogNormal{Median: 25, Sigma: 1, Min: 1, Max: 1_000}
	w.Tools.Mean = 1.6
	real, err := Calibrate(context.Background(), truth, 600, 7, 2)
	require.NoError(t, err)

	base, err := NewSetting("claude-code")
	require.NoError(t, err)
	fit, err := FitWorkload(context.Background(), &real, FitOptions{Base: base, Episodes: 300, Rounds: 3, Seed: 1, Workers: 2})
	require.NoError(t, err)
	got := fit.Setting.Workload
	assert.InEpsilon(t, 450, got.Output.Median, 0.15)
	assert.InEpsilon(t, 0.7, got.Output.Sigma, 0.2)
	assert.InEpsilon(t, 900, got.ToolResult.Median, 0.3)
	assert.InEpsilon(t, 25, got.Replies.Median, 0.3)
	assert.InEpsilon(t, 1.6, got.Tools.Mean, 0.1)
	assert.InEpsilon(t, 9_000, float64(got.StartContext.Min+got.StartContext.Max)/2, 0.1)
	for _, d := range fit.Distances {
		if d.Real > 0 {
			assert.Less(t, d.KS, 0.2, d.Name)
		}
	}
	assert.Contains(t, fit.Kept[len(fit.Kept)-3], "faults")
	assert.Contains(t, fit.Kept[len(fit.Kept)-1], "compaction_rework")
	assert.NotContains(t, fit.Kept, "start_context (no session starts with this model)")
}

func TestFitNeedsCalls(t *testing.T) {
	base, err := NewSetting("claude-code")
	require.NoError(t, err)
	_, err = FitWorkload(context.Background(), &Figures{}, FitOptions{Base: base})
	assert.ErrorContains(t, err, "too few calls")
}

func TestDistance(t *testing.T) {
	var a, b, c Sample
	for v := range int64(200) {
		a.Add(v)
		b.Add(v)
		c.Add(1_000 + v)
	}
	assert.Zero(t, distance("same", &a, &b).KS)
	d := distance("apart", &a, &c)
	assert.InDelta(t, 1.0, d.KS, 1e-9)
	assert.True(t, d.Differs())
	assert.InDelta(t, 1.358*0.1, d.Critical, 1e-9, "1.358 sqrt(400/40000)")
	assert.Equal(t, [4]float64{19, 99, 179, 197}, d.RealQ)
}

func TestWorkloadFileRoundTrip(t *testing.T) {
	s, err := NewSetting("claude-code")
	require.NoError(t, err)
	wf := WorkloadFile{Workload: s.Workload, Source: WorkloadSource{Files: []string{"a.jsonl"}, Calls: 3}}
	wf.Model.ContextWindow, wf.Model.Name = 258_400, "gpt-test"
	path := filepath.Join(t.TempDir(), "w.json")
	require.NoError(t, WriteWorkloadFile(path, wf))
	got, err := ReadWorkloadFile(path)
	require.NoError(t, err)
	wf.Version = WorkloadFileVersion
	assert.Equal(t, wf, got)
	s2 := s.WithWorkloadFile(path, got)
	assert.Equal(t, 258_400, s2.Model.ContextWindow)
	assert.Equal(t, s.Model.MaxOutputTokens, s2.Model.MaxOutputTokens)
	assert.Contains(t, s2.ReplayFlags(), "-workload "+path)
}
