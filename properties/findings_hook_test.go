package properties

import (
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heldByHookCase is the seed profile under a stop hook that always
// blocks, with script as the model's only step, repeated forever.
func heldByHookCase(t *testing.T, script fakemodel.Step, hooks []fakemodel.StopOutcome) Case {
	t.Helper()
	c := readCase(t, "testdata/findings/seed_unbounded_stop_hook_blocks.json")
	c.Policy = loop.Seed()
	script.Repeat = fakemodel.Forever
	c.Script = []fakemodel.Step{script}
	c.StopHooks = hooks
	return c
}

// TestUnboundedStopHookBlocksExplainsInterleavedRecoveries: a run the
// stop hook holds is the known finding even when other continues come
// between its blocks (an escalation before each block, here), not only
// when the last transitions are all blocks; a run held by the model's
// own tool turns is not.
func TestUnboundedStopHookBlocksExplainsInterleavedRecoveries(t *testing.T) {
	block := []fakemodel.StopOutcome{{Block: "tests still fail"}}
	escalating := fakemodel.Step{
		If:   &fakemodel.Condition{Field: fakemodel.FieldMaxTokens, Op: fakemodel.OpGt, Value: "8000"},
		Then: &fakemodel.Step{Kind: fakemodel.Reply, Text: "done"},
		Else: &fakemodel.Step{Kind: fakemodel.Truncated, Text: "cut"},
	}
	f := findingNamed(t, FindingUnboundedStopHookBlocks)

	r, err := heldByHookCase(t, escalating, block).Execute()
	require.NoError(t, err)
	vs := Check(r)
	require.NotEmpty(t, vs, "a hook that always blocks, an escalation before each block: the run never ends")
	assert.Contains(t, r.Result.Trace.Transitions(), loop.MaxOutputTokensEscalate, "escalations come between the blocks")
	assert.Empty(t, Unexplained(r, vs), "the stop hook holds the run: the known finding explains it")

	fixed := heldByHookCase(t, escalating, block)
	fixed.Policy = f.Fix(fixed.Policy)
	r, err = fixed.Execute()
	require.NoError(t, err)
	for _, v := range Check(r) {
		assert.NotEqual(t, "termination", v.Invariant, "with the block cap the run ends: %v", v)
	}
	assert.Empty(t, Unexplained(r, Check(r)), "with the block cap what is left is the escalation finding")

	tools := fakemodel.Step{Kind: fakemodel.Reply, ToolUses: []fakemodel.ToolUse{{Name: "Read"}}}
	r, err = heldByHookCase(t, tools, block).Execute()
	require.NoError(t, err)
	require.NotEmpty(t, Check(r), "tool turns forever under a blocking hook: the run never ends")
	for _, v := range Check(r) {
		assert.False(t, f.Explains(r, v), "a run the model's tool turns keep going is not held by the stop hook: %v", v)
	}
}

// TestHeldByStopHook pins the tail rule at its edges.
func TestHeldByStopHook(t *testing.T) {
	repeat := func(n int, x loop.Transition) []loop.Transition {
		out := make([]loop.Transition, n)
		for i := range out {
			out[i] = x
		}
		return out
	}
	cat := func(parts ...[]loop.Transition) []loop.Transition {
		var out []loop.Transition
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	B, E := loop.StopHookBlocking, loop.MaxOutputTokensEscalate
	alternating := cat(repeat(1, E), repeat(1, B))
	for range 9 {
		alternating = cat(alternating, repeat(1, E), repeat(1, B))
	}
	for _, tc := range []struct {
		name string
		ts   []loop.Transition
		want bool
	}{
		{"none", nil, false},
		{"ten blocks", repeat(10, B), true},
		{"nine blocks", repeat(9, B), false},
		{"blocks between escalations", alternating, true},
		{"a tool turn among the blocks", cat(repeat(5, B), repeat(1, loop.NextTurn), repeat(5, B)), false},
		{"a tool turn before the tail", cat(repeat(1, loop.NextTurn), repeat(40, B)), true},
		{"blocks, then ten other continues", cat(repeat(10, B), repeat(10, E)), false},
		{"blocks, then nine other continues", cat(repeat(10, B), repeat(9, E)), true},
		{"the tenth block one before the tail", cat(repeat(1, B), repeat(1, E), repeat(8, B), repeat(30, E), repeat(1, B)), false},
		{"the tenth block first in the tail", cat(repeat(1, E), repeat(1, B), repeat(8, B), repeat(30, E), repeat(1, B)), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, heldByStopHook(tc.ts), "%v", tc.ts)
		})
	}
}
