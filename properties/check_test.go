package properties_test

import (
	"context"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/properties"
	"github.com/stretchr/testify/require"
)

// demoRun is a small seed run through a 413, a truncation and a blocking
// stop hook that keeps every invariant.
func demoRun(t *testing.T) properties.Run {
	t.Helper()
	primary := loop.ModelInfo{Name: "m", ContextWindow: 200_000, MaxOutputTokens: 64_000}
	model := &fakemodel.Model{Window: 200_000, Script: []fakemodel.Step{
		{Text: "reading", ToolUses: []fakemodel.ToolUse{{Name: "Read"}}},
		{Kind: fakemodel.RequestTooLarge},
		{Text: "<summary>read</summary>"},
		{Kind: fakemodel.Truncated, Text: "long"},
		{Text: "fixed"},
		{Text: "done"},
	}}
	cfg := loop.Config{Policy: loop.Seed(), Model: model, Primary: primary, ToolNames: []string{"Read"},
		Tools:     &fakemodel.Tools{},
		StopHooks: &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Block: "again"}, {}}}}
	initial := []loop.Message{{ID: "u1", Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockText, Text: "fix it"}}}}
	res, err := loop.Run(context.Background(), cfg, initial)
	require.NoError(t, err)
	return properties.Run{Policy: cfg.Policy, Initial: initial, Result: res, Models: []loop.ModelInfo{primary}, ScriptSteps: len(model.Script)}
}

func TestCheckPassesAGoodRun(t *testing.T) {
	r := demoRun(t)
	require.Empty(t, properties.Check(r), "violations on a good run; trace:\n%v", r.Result.Trace)
	require.Equal(t, loop.Completed, r.Result.Terminal)
}
