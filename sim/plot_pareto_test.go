package sim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// TestParetoLabelsEverySetting: six settings close together each get a
// label of their own, no two labels overlap, and a zero that means off
// reads "off".
func TestParetoLabelsEverySetting(t *testing.T) {
	sw, err := ParseSweep("stop_hook_block_cap=0,1,2,4,8,16")
	require.NoError(t, err)
	settings, err := Grid([]Setting{mustSetting(t, "claude-code", "workload.faults.stop_hook_repeat=0.9")}, []Sweep{sw})
	require.NoError(t, err)
	r, err := Run(context.Background(), Config{Settings: settings, Episodes: 40, Seed: 3, Prices: DefaultPrices})
	require.NoError(t, err)
	p, labels, err := paretoPlot(r)
	require.NoError(t, err)
	c := vgimg.New(paretoWidth, paretoHeight)
	p.Draw(draw.New(c))
	require.Len(t, labels.placed, 6)
	assert.Equal(t, "stop_hook_block_cap=off", labels.labels[0])
	for i, a := range labels.placed {
		assert.Positive(t, a.Max.X-a.Min.X, "setting %d has a label", i)
		for j, b := range labels.placed[:i] {
			overlap := a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
			assert.False(t, overlap, "labels %q and %q overlap", labels.labels[i], labels.labels[j])
		}
	}
}

// TestParetoAxes: the axes parse from their names, refuse unknown or
// equal ones, and decide the front.
func TestParetoAxes(t *testing.T) {
	ax, err := ParseParetoAxes("tokens, failure_rate")
	require.NoError(t, err)
	assert.Equal(t, ParetoAxes{X: ParetoAxis{Metric: Tokens}, Y: FailureAxis}, ax)
	assert.Equal(t, "cost_usd,failure_rate", DefaultParetoAxes.String())
	for _, bad := range []string{"tokens", "tokens,tokens", "tokens,speed", ""} {
		_, err := ParseParetoAxes(bad)
		assert.Error(t, err, bad)
	}

	r := &Result{Settings: make([]SettingResult, 3)}
	for i, v := range []struct{ tokens, cost, fail int64 }{{100, 30, 1}, {200, 10, 1}, {300, 20, 1}} {
		a := NewAggregate()
		for k := range 10 {
			ep := Episode{Index: k, Terminal: "completed"}
			ep.Values[Tokens], ep.Values[CostMicroUSD] = v.tokens, v.cost
			if k < int(v.fail) {
				ep.Terminal = FailureTerminals[0]
			}
			a.Add(&ep)
		}
		r.Settings[i] = SettingResult{Aggregate: a}
	}
	assert.Equal(t, []bool{false, true, false}, r.ParetoFront(), "cost against failures: the cheapest")
	r.SetParetoAxes(ax)
	assert.Equal(t, []bool{true, false, false}, r.ParetoFront(), "tokens against failures: the smallest")
}
