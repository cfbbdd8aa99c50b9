package sim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestContextEverySetting: each sample episode is played by every
// setting compared, and the legend names every setting and only the
// events and limits the figure shows, none empty.
func TestContextEverySetting(t *testing.T) {
	sw, err := ParseSweep("auto_compact_buffer=5000,20000,60000")
	require.NoError(t, err)
	settings, err := Grid([]Setting{mustSetting(t, "claude-code")}, []Sweep{sw})
	require.NoError(t, err)
	r, err := Run(context.Background(), Config{Settings: settings, Episodes: 30, Seed: 5, Prices: DefaultPrices})
	require.NoError(t, err)
	samples, err := CompareSamples(r, []int{0, 1, 2})
	require.NoError(t, err)
	require.NotEmpty(t, samples)
	var marks [numMarkKinds]bool
	thresholds := map[int]bool{}
	for _, cs := range samples {
		require.Len(t, cs.Timelines, 3, cs.Feature)
		for _, tl := range cs.Timelines {
			assert.Equal(t, cs.Index, tl.Index)
			assert.Equal(t, cs.Seed, tl.Seed)
			thresholds[tl.Limits.AutoCompactThreshold] = true
			for _, m := range tl.Marks {
				marks[m.Kind] = true
			}
		}
	}
	assert.Len(t, thresholds, 3, "each setting its own threshold")
	labels := r.Labels()
	fig, err := contextFigure(samples, labels, []bool{true, true, true})
	require.NoError(t, err)
	assert.Len(t, fig.plots, len(samples))
	for _, l := range labels {
		assert.Contains(t, fig.entries, l)
	}
	assert.Contains(t, fig.entries, "auto-compact threshold (in each setting's colour)")
	for _, e := range fig.entries {
		assert.NotEmpty(t, e)
	}
	for k := range numMarkKinds {
		assert.Equal(t, marks[k], contains(fig.entries, k.String()), "legend entry %q", k)
	}
	assert.Equal(t, "x=1, 2 and off", sameNames([]string{"x=1", "x=2", "x=off"}))
	assert.Equal(t, "seed and seed x=1", sameNames([]string{"seed", "seed x=1"}))
	lines := wrapNote("identical under a=1, 2, 3, 4 and 5", 16)
	assert.Equal(t, []string{"identical under", "   a=1, 2, 3, 4", "   and 5"}, lines)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
