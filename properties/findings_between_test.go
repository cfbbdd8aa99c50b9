package properties

import (
	"context"
	"fmt"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// workingModel answers each stop-hook block (and the prompt) with a tool
// round, and each tool result with a final answer: a model that does
// what the hook asks before it answers again, forever.
type workingModel struct{ requests int }

func (m *workingModel) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	if err := ctx.Err(); err != nil {
		return loop.Response{}, err
	}
	m.requests++
	last := req.Messages[len(req.Messages)-1]
	if len(last.Blocks) > 0 && last.Blocks[0].Type == loop.BlockToolResult {
		yield(loop.Block{Type: loop.BlockText, Text: "Done."})
		return loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{InputTokens: 1000, OutputTokens: 10}}, nil
	}
	yield(loop.Block{Type: loop.BlockToolUse, ID: fmt.Sprintf("toolu_%d", m.requests), Name: "Read", Input: "{}"})
	return loop.Response{StopReason: loop.StopToolUse, Usage: loop.Usage{InputTokens: 1000, OutputTokens: 10}}, nil
}

// workingRun runs profile p against workingModel under a stop hook that
// always blocks, halted at limit iterations.
func workingRun(t *testing.T, p loop.Policy, limit int) Run {
	t.Helper()
	initial := []loop.Message{{Role: loop.RoleUser, Tokens: 100, Blocks: []loop.Block{{Type: loop.BlockText, Text: "Fix the tests."}}}}
	primary := loop.ModelInfo{Name: "model", ContextWindow: 200_000, MaxOutputTokens: 64_000}
	res, err := loop.Run(context.Background(), loop.Config{
		Policy: p, Model: &workingModel{}, Primary: primary, ToolNames: []string{"Read"},
		Tools:            &fakemodel.Tools{Default: fakemodel.Tool{Tokens: 50}},
		StopHooks:        &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Block: "tests still fail"}}},
		IterationLimit:   limit,
		InlineModelCalls: true,
	}, initial)
	require.NoError(t, err)
	return Run{Policy: p, Initial: initial, Result: res, Models: []loop.ModelInfo{primary}}
}

// A stop hook that always blocks, with a tool round after each block,
// holds every profile's run until the harness halts it, the block cap
// notwithstanding (a tool turn starts its count again): the known finding
// stop_hook_blocks_between_tool_turns explains it, the finding of blocks
// in a row does not, and with the fix (a turn cap) the run ends max_turns.
func TestStopHookBlocksBetweenToolTurns(t *testing.T) {
	f := findingNamed(t, FindingStopHookBlocksBetweenToolTurns)
	inRow := findingNamed(t, FindingUnboundedStopHookBlocks)
	for _, name := range loop.Profiles() {
		t.Run(name, func(t *testing.T) {
			p, err := loop.Profile(name)
			require.NoError(t, err)
			require.True(t, f.Applies(p), "the finding applies to %s", name)
			r := workingRun(t, p, 400)
			require.True(t, r.Result.Halted, "the run never ends: %s", r.Result.Terminal)
			ts := r.Result.Trace.Transitions()
			assert.Contains(t, ts, loop.NextTurn)
			assert.Contains(t, ts, loop.StopHookBlocking)
			vs := Check(r)
			require.NotEmpty(t, vs)
			assert.Empty(t, Unexplained(r, vs), "the known finding explains every violation")
			for _, v := range vs {
				assert.True(t, f.Explains(r, v), "%s explains %v", f.Name, v)
				assert.False(t, inRow.Explains(r, v), "tool turns come between the blocks: not %s", inRow.Name)
			}

			fixed := f.Fix(p)
			assert.False(t, f.Applies(fixed))
			r = workingRun(t, fixed, 0)
			assert.Equal(t, loop.MaxTurns, r.Result.Terminal, "with the fix the run ends at the turn cap")
			assert.Empty(t, Check(r), "with the fix the run keeps every invariant")
		})
	}
}

// TestHeldAcrossToolTurns pins the tail rule at its edges.
func TestHeldAcrossToolTurns(t *testing.T) {
	B, N, E := loop.StopHookBlocking, loop.NextTurn, loop.MaxOutputTokensEscalate
	cycle := func(n int, parts ...loop.Transition) []loop.Transition {
		var out []loop.Transition
		for range n {
			out = append(out, parts...)
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
	for _, tc := range []struct {
		name string
		ts   []loop.Transition
		want bool
	}{
		{"none", nil, false},
		{"a block after each tool turn", cycle(40, N, B), true},
		{"blocks in a row only", cycle(80, B), false},
		{"tool turns only", cycle(80, N), false},
		// the last quarter (20 of 80) holds 5 blocks in each half
		{"five blocks in each half of the last quarter", cat(cycle(60, N), cycle(5, N, B), cycle(5, B, N)), true},
		{"four blocks in the last half of the last quarter", cat(cycle(60, N), cycle(5, N, B), cycle(4, B, N), cycle(2, N)), false},
		{"four blocks in the first half of the last quarter", cat(cycle(60, N), cycle(4, N, B), cycle(2, N), cycle(5, B, N)), false},
		{"the blocks stopped before the last quarter", cat(cycle(40, N, B), cycle(40, N)), false},
		{"other continues between the blocks", cycle(40, N, E, B), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, heldAcrossToolTurns(tc.ts), "%v", tc.ts)
		})
	}
}
