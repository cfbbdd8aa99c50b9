package sim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestZeroMeanings: the fields whose zero is a switch come from the
// policy's zero tags, and only those show it in place of 0.
func TestZeroMeanings(t *testing.T) {
	assert.Equal(t, "off", ZeroMeaning("stop_hook_block_cap"))
	assert.Equal(t, "off", ZeroMeaning("max_turns"))
	assert.Equal(t, "", ZeroMeaning("auto_compact_buffer"), "a buffer of 0 is a number")
	assert.Equal(t, "off", ValueLabel("stop_hook_block_cap", "0"))
	assert.Equal(t, "off", ValueLabel("stop_hook_block_cap", "0.0"))
	assert.Equal(t, "8", ValueLabel("stop_hook_block_cap", "8"))
	assert.Equal(t, "0", ValueLabel("auto_compact_buffer", "0"))
	assert.Equal(t, "0", ValueLabel("workload.faults.overloaded", "0"))

	assert.True(t, Categorical("stop_hook_block_cap", []string{"0", "2", "8"}), "0 means no cap: not a point on the line")
	assert.False(t, Categorical("stop_hook_block_cap", []string{"2", "8"}))
	assert.False(t, Categorical("auto_compact_buffer", []string{"0", "5_000", "10000"}))
	assert.True(t, Categorical("auto_compact", []string{"true", "false"}))

	xs, numeric := sweepPositions("stop_hook_block_cap", []string{"0", "2", "8"})
	assert.False(t, numeric)
	assert.Equal(t, []float64{0, 1, 2}, xs, "categories are evenly spaced")
	xs, numeric = sweepPositions("auto_compact_buffer", []string{"5000", "10_000"})
	assert.True(t, numeric)
	assert.Equal(t, []float64{5000, 10000}, xs)
}

// TestShortLabelsCategorical: a setting's label shows what its zero means.
func TestShortLabelsCategorical(t *testing.T) {
	labels := ShortLabels([]Setting{
		mustSetting(t, "claude-code", "stop_hook_block_cap=0"),
		mustSetting(t, "claude-code", "stop_hook_block_cap=2"),
	})
	assert.Equal(t, []string{"stop_hook_block_cap=off", "stop_hook_block_cap=2"}, labels)
}

// TestTokenPanels: six settings give six tiles, each with its own
// label, its median, and the first setting behind the others.
func TestTokenPanels(t *testing.T) {
	sw, err := ParseSweep("auto_compact_buffer=5000:30000:5000")
	require.NoError(t, err)
	settings, err := Grid([]Setting{mustSetting(t, "claude-code")}, []Sweep{sw})
	require.NoError(t, err)
	res, err := Run(context.Background(), Config{Settings: settings, Episodes: 30, Seed: 2, Prices: DefaultPrices})
	require.NoError(t, err)
	panels, first, last := tokenPanels(res)
	require.Len(t, panels, 6)
	assert.Less(t, first, last)
	seen := map[string]bool{}
	for i, pn := range panels {
		assert.NotEmpty(t, pn.label)
		assert.False(t, seen[pn.label], "label %q twice", pn.label)
		seen[pn.label] = true
		assert.Equal(t, float64(res.Settings[i].Aggregate.Quantile(Tokens, 0.5)), pn.median)
		assert.Positive(t, pn.median)
		assert.Equal(t, i > 0, pn.reference != nil, "tile %d's reference", i)
		assert.Equal(t, colorOf(i), pn.color)
		total := 0.0
		for _, v := range pn.share {
			total += v
		}
		assert.InDelta(t, 100, total, 100.0/30+1e-9, "tile %d: the shares of the episodes drawn", i)
	}
}
