package sim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParetoSignificance: settings that play the same episodes are
// compared episode by episode. An uncapped stop hook against the cap of
// 8, under hooks that keep blocking, costs a few percent more tokens on
// the episodes it changes: the paired test tells them apart where the
// unpaired one cannot at 300 episodes; two identical settings are never
// told apart, and the one the other beats is marked as not significantly
// beaten.
func TestParetoSignificance(t *testing.T) {
	base, err := NewSetting("claude-code")
	require.NoError(t, err)
	for _, kv := range [][2]string{{"workload.faults.stop_hook_block", "0.3"}, {"workload.faults.stop_hook_repeat", "0.9"},
		{"workload.after_block.mean", "0"}, {"workload.after_block.max", "0"}} {
		base, err = base.With(kv[0], kv[1])
		require.NoError(t, err)
	}
	settings, err := Grid([]Setting{base}, []Sweep{{Field: "stop_hook_block_cap", Values: []string{"8", "0", "8"}}})
	require.NoError(t, err)
	r, err := Run(context.Background(), Config{Settings: settings, Episodes: 300, Seed: 4, Prices: DefaultPrices})
	require.NoError(t, err)
	require.True(t, r.Paired())
	assert.Greater(t, r.Settings[1].Aggregate.Mean(Tokens), r.Settings[0].Aggregate.Mean(Tokens))
	assert.True(t, r.Distinct(0, 1), "paired: the uncapped hook's extra tokens are significant")
	assert.False(t, r.Distinct(0, 2), "identical settings")
	assert.Equal(t, []bool{false, false, false}, r.ParetoUncertain()) // 1 is beaten significantly; 0 and 2 tie on the front

	unpaired := *r
	unpaired.pairs = nil
	assert.False(t, unpaired.Paired())
	assert.False(t, unpaired.Distinct(0, 1), "unpaired, 300 episodes cannot tell a few percent apart")
	assert.Equal(t, []bool{false, true, false}, unpaired.ParetoUncertain())

	big := newPairs(2, maxPaired, 0, maxPaired)
	assert.Nil(t, big, "a run beyond maxPaired values keeps no pairs")
}

// TestSummariesCarryIntervals: metrics.json's data hold each metric's
// variance and mean interval and the failure rate's interval, around the
// estimates.
func TestSummariesCarryIntervals(t *testing.T) {
	s, err := NewSetting("seed")
	require.NoError(t, err)
	r, err := Run(context.Background(), Config{Settings: []Setting{s}, Episodes: 80, Seed: 2, Prices: DefaultPrices})
	require.NoError(t, err)
	ss := r.Summaries()[0]
	tok := ss.Metrics[Tokens.Name()]
	assert.Positive(t, tok.Variance)
	assert.True(t, tok.MeanCI.Contains(tok.Mean) && tok.MeanCI.Lo < tok.MeanCI.Hi, "%+v", tok)
	assert.True(t, ss.FailureCI.Contains(ss.FailureRate) && ss.FailureCI.Hi > 0, "%+v", ss.FailureCI)
}

func TestFormatRate(t *testing.T) {
	// Wilson 95% of 80/5000 is [1.29%, 1.99%] (statsmodels
	// proportion_confint(80, 5000, method="wilson")): nearly symmetric,
	// so ± half its width; of 0/60 it is [0, 6.0%]: the interval itself.
	assert.Equal(t, "1.6% ± 0.3", FormatRate(80, 5000)) // half of 0.70
	assert.Equal(t, "0.0% [0.0, 6.0]", FormatRate(0, 60))
}
