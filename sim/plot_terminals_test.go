package sim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// TestTerminalPanels: the failures and the endings the user or a hook
// chose are apart, the failures add up to the failure rate, the chosen
// endings to the rest of what did not complete, and no series is empty.
func TestTerminalPanels(t *testing.T) {
	settings := []Setting{mustSetting(t, "seed", "workload.faults.abort=0.2"), mustSetting(t, "claude-code", "workload.faults.abort=0.2")}
	r, err := Run(context.Background(), Config{Settings: settings, Episodes: 60, Seed: 7, Prices: DefaultPrices})
	require.NoError(t, err)
	panels := terminalPanels(r, r.Settings)
	require.NotEmpty(t, panels[0].series, "the seed completes after API errors")
	require.NotEmpty(t, panels[1].series, "aborts")
	for i, s := range r.Settings {
		a := s.Aggregate
		var failed, chosen float64
		for _, ser := range panels[0].series {
			failed += ser.values[i]
		}
		for _, ser := range panels[1].series {
			chosen += ser.values[i]
		}
		assert.InDelta(t, 100*a.FailureRate(), failed, 1e-9, "setting %d", i)
		// every episode that did not complete, and those that completed after an API error
		notCompleted := float64(a.Episodes-a.Terminals[loop.Completed]+a.CompletedAfterAPIError) / float64(a.Episodes)
		assert.InDelta(t, 100*notCompleted, chosen+failed, 1e-9, "setting %d", i)
	}
	for pi, pn := range panels {
		for _, ser := range pn.series {
			assert.NotEmpty(t, ser.name)
			term := loop.Terminal(ser.name)
			if pi == 1 {
				assert.False(t, IsFailure(term), "%s is a failure, among the chosen endings", term)
				assert.NotEqual(t, loop.Completed, term)
			} else if ser.name != "completed after an API error" && ser.name != "halted (iteration limit)" {
				assert.True(t, IsFailure(term), "%s among the failures", term)
			}
			some := false
			for _, v := range ser.values {
				some = some || v > 0
			}
			assert.True(t, some, "series %s is empty", ser.name)
		}
	}
}
