package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReworkEvidence(t *testing.T) {
	tg, err := DefaultTargets()
	require.NoError(t, err)
	require.NotEmpty(t, tg.Rework)
	ev := ReworkEvidence()
	var excess []string
	for _, o := range tg.Rework {
		excess = append(excess, fmt.Sprintf("%+d", o.Excess()))
	}
	assert.Contains(t, ev, "before is "+strings.Join(excess, ", ")+" (mean")
	assert.Contains(t, ev, "the transcripts' 4 compactions")
}

// TestAssumptions: every assumption is listed; a value that differs
// between settings is listed per setting.
func TestAssumptions(t *testing.T) {
	a, err := NewSetting("claude-code")
	require.NoError(t, err)
	b, err := a.With("workload.compaction_rework.mean", "0")
	require.NoError(t, err)
	res, err := Run(context.Background(), Config{Settings: []Setting{a, b}, Episodes: 2, Seed: 1, Workers: 1, Prices: DefaultPrices})
	require.NoError(t, err)
	as := Assumptions(res)
	names := map[string]string{}
	for _, x := range as {
		names[x.Name] = x.Value
	}
	for _, n := range []string{"prices", "compaction rework", "fault rates", "workload", "model"} {
		assert.Contains(t, names, n)
	}
	assert.Contains(t, names["compaction rework"], "claude-code: 3 more tool-calling replies")
	assert.Contains(t, names["compaction rework"], "claude-code workload.compaction_rework.mean=0: none (off)")
	assert.NotContains(t, names["prices"], ";", "one value for every setting")
}
