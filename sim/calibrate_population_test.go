package sim

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
)

// syntheticSources simulates n sources of perUser prompts each from a
// workload with population p: each source one simulated user, as the
// fit takes a folder of logs to be.
func syntheticSources(t *testing.T, p fakemodel.Population, n, perUser int, seed uint64) []Source {
	t.Helper()
	s, err := NewSetting("claude-code")
	require.NoError(t, err)
	s.Workload.Population = p
	users, err := CalibrateUsers(context.Background(), s, n, perUser, seed, 2)
	require.NoError(t, err)
	out := make([]Source, n)
	for i := range users {
		out[i] = Source{Name: fmt.Sprintf("user%d", i), Figures: users[i]}
	}
	return out
}

// TestFitPopulationRecoversTheSpread: sources simulated from a known
// population fit back to its spreads; sources of one user fit to
// (nearly) none.
func TestFitPopulationRecoversTheSpread(t *testing.T) {
	truth := fakemodel.Population{StartContext: 0.25, Output: 0.6, Replies: 0.7, Tools: 0.5, ToolResult: 0.4}
	got, spreads := FitPopulation(syntheticSources(t, truth, 40, 25, 5))
	t.Logf("fitted %+v, truth %+v", got, truth)
	require.Len(t, spreads, 5)
	assert.InEpsilon(t, truth.StartContext, got.StartContext, 0.3, "start_context")
	assert.InEpsilon(t, truth.Output, got.Output, 0.25, "output")
	assert.InEpsilon(t, truth.Replies, got.Replies, 0.35, "replies")
	assert.InEpsilon(t, truth.Tools, got.Tools, 0.5, "tools")
	assert.InEpsilon(t, truth.ToolResult, got.ToolResult, 0.4, "tool_result")
	for _, sp := range spreads {
		assert.Len(t, sp.Locations, 40, sp.Parameter)
	}

	none, _ := FitPopulation(syntheticSources(t, fakemodel.Population{}, 40, 12, 5))
	assert.Less(t, none.Output, 0.1, "output spread fitted on one user")
	assert.Less(t, none.Replies, 0.4, "replies spread fitted on one user (its noise floor: a few dozen prompts per source)")
	assert.Less(t, none.StartContext, 0.05, "start context spread fitted on one user")

	one, _ := FitPopulation(syntheticSources(t, truth, 1, 12, 5))
	assert.False(t, one.Spread(), "a population fitted on one source")
}

// TestCrossValidationRecoversAPopulation: on sources drawn from a known
// population, each fold fits a spread near the truth, and the sources
// held out fall in the band of the population's simulated users far
// more often than in that of a one-user fit.
func TestCrossValidationRecoversAPopulation(t *testing.T) {
	truth := fakemodel.Population{StartContext: 0.3, Output: 0.8, Replies: 0.6}
	sources := syntheticSources(t, truth, 5, 10, 11)
	base, err := NewSetting("claude-code")
	require.NoError(t, err)
	opts := CVOptions{Fit: FitOptions{Base: base, Episodes: 200, Rounds: 1, Seed: 3, Workers: 2}, Users: 30}
	one, err := CrossValidate(context.Background(), sources, opts)
	require.NoError(t, err)
	opts.Population = true
	pop, err := CrossValidate(context.Background(), sources, opts)
	require.NoError(t, err)

	require.Len(t, pop.Folds, 5)
	for _, f := range pop.Folds {
		assert.InDelta(t, truth.Output, f.Population.Output, 0.45, "output spread fitted without %s", f.Source)
		assert.InDelta(t, truth.StartContext, f.Population.StartContext, 0.2, "start context spread fitted without %s", f.Source)
	}
	for _, f := range one.Folds {
		assert.False(t, f.Population.Spread(), "a one-user fold fitted a population")
	}
	inBand := func(cv *CrossValidation, figure string) int {
		n := 0
		for _, c := range cv.Cells {
			if c.Figure == figure && c.Inside() {
				n++
			}
		}
		return n
	}
	for _, fig := range []string{"output per call, median", "start context, median"} {
		assert.Greater(t, inBand(pop, fig), inBand(one, fig), "%s: sources in the band, population against one user", fig)
	}
	cells, inside, _, _ := pop.Overall()
	_, insideOne, _, _ := one.Overall()
	assert.Greater(t, inside, insideOne, "sources in the band over %d cells", cells)
}

func TestCrossValidationNeedsTwoSources(t *testing.T) {
	base, err := NewSetting("claude-code")
	require.NoError(t, err)
	_, err = CrossValidate(context.Background(), syntheticSources(t, fakemodel.Population{}, 1, 3, 1), CVOptions{Fit: FitOptions{Base: base}})
	assert.ErrorContains(t, err, "at least two")
}
