package sim

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
)

// TestUsersWithoutSpreadAreTheEpisodes: with no population spread the
// users' episodes are the simulation's episodes 0 to n-1, whatever their
// grouping.
func TestUsersWithoutSpreadAreTheEpisodes(t *testing.T) {
	s, err := NewSetting("claude-code")
	require.NoError(t, err)
	s.Workload.Population = fakemodel.Population{}
	users, err := CalibrateUsers(context.Background(), s, 6, 5, 3, 2)
	require.NoError(t, err)
	var got Figures
	for i := range users {
		got.Merge(&users[i])
	}
	want, err := Calibrate(context.Background(), s, 30, 3, 1)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(Measure(&want), Measure(&got)), "users' figures against the episodes'")
}

// TestUsersShareTheirSessionDraws: a user's episodes share one draw of
// the population, so with an output spread the users' median outputs
// differ by far more than those of users without one.
func TestUsersShareTheirSessionDraws(t *testing.T) {
	s, err := NewSetting("claude-code")
	require.NoError(t, err)
	spreadOf := func(sigma float64) float64 {
		s.Workload.Population.Output = sigma
		users, err := CalibrateUsers(context.Background(), s, 40, 4, 9, 2)
		require.NoError(t, err)
		var medians Sample
		for i := range users {
			medians.Add(int64(users[i].Output.Quantile(0.5)))
		}
		return medians.Quantile(0.9) / medians.Quantile(0.1)
	}
	none, wide := spreadOf(0), spreadOf(1)
	assert.Greater(t, wide, 2*none, "users' median output, p90/p10: %.2f without a spread, %.2f with one", none, wide)

	again, err := CalibrateUsers(context.Background(), s, 3, 4, 9, 1)
	require.NoError(t, err)
	once, err := CalibrateUsers(context.Background(), s, 3, 4, 9, 2)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(Measure(&again[2]), Measure(&once[2])), "a user's figures depend on the workers")
}
