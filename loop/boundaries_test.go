package loop_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// usageModel answers every request with one text block and the usage
// it is given, whatever the request's size.
type usageModel struct {
	usage loop.Usage
}

func (m usageModel) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	yield(loop.Block{Type: loop.BlockText, Text: "done"})
	return loop.Response{StopReason: loop.StopEndTurn, Usage: m.usage}, nil
}

// runModel runs the seed policy on sonnet against model from one prompt.
func runModel(t *testing.T, model loop.Model) *loop.Result {
	t.Helper()
	res, err := loop.Run(context.Background(), loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet,
		Tools: &fakemodel.Tools{}}, []loop.Message{loop.UserText("fix the bug")})
	require.NoError(t, err)
	return res
}

// §3: a refill exactly the window's number of replies after a compaction
// is a rapid one; the claude-code test shows one a reply later is not.
func TestRapidRefillWindowIncludesItsLastReply(t *testing.T) {
	tools := &fakemodel.Tools{Default: fakemodel.Tool{Tokens: 700}, ByName: map[string]fakemodel.Tool{"Bash": {Tokens: 63_000}}}
	small := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}, OutputTokens: 100}
	large := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Bash"}}, OutputTokens: 100}
	initial := []loop.Message{{Role: loop.RoleUser, Tokens: 66_000, Blocks: []loop.Block{{Type: loop.BlockText, Text: "paste"}}},
		{Role: loop.RoleAssistant, Tokens: 500, Blocks: []loop.Block{{Type: loop.BlockText, Text: "ok"}}},
		{Role: loop.RoleUser, Tokens: 500, Blocks: []loop.Block{{Type: loop.BlockText, Text: "go"}}},
		{Role: loop.RoleAssistant, Tokens: 500, Blocks: []loop.Block{{Type: loop.BlockText, Text: "ok"}}},
		{Role: loop.RoleUser, Tokens: 500, Blocks: []loop.Block{{Type: loop.BlockText, Text: "go on"}}}}
	script := []fakemodel.Step{summary, small, small, large, summary, small, small, small, summary, textStep}
	for window, want := range map[string][]int{"2": {0, 0, 0}, "3": {0, 1, 2}} {
		res, _ := ccRun(t, fixture{initial: initial, tools: tools, script: script}, append(guardAlone,
			"tool_result_budget", "0", "rapid_refill_window", window)...)
		require.Equal(t, loop.Completed, res.Terminal, sequence(res.Trace))
		var rapid []int
		for _, c := range events[loop.Compaction](res.Trace) {
			assert.True(t, c.OK, "window %s: compaction %+v", window, c)
			rapid = append(rapid, c.RapidRefill)
		}
		if diff := cmp.Diff(want, rapid); diff != "" {
			t.Errorf("window %s: rapid refill counts (-want +got):\n%s", window, diff)
		}
	}
}

// A compactor may report a 0-token summary ("estimate it"): the
// compaction succeeds and the summary gets the estimator's size.
func TestZeroTokenSummaryIsEstimated(t *testing.T) {
	text := "<summary>the work so far</summary>"
	compactor := &fakemodel.Compactor{Outcomes: []fakemodel.CompactOutcome{{Summary: text}}}
	res, _ := run(t, fixture{initial: bigHistory(3, 1_000), compactor: compactor, script: []fakemodel.Step{ptl, textStep}})
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{loop.ReactiveCompactRetry}, Turn: 1, Requests: 2,
		Attempted: true})
	var sum []loop.Message
	for _, m := range res.State.Messages {
		if m.CompactSummary {
			sum = append(sum, m)
		}
	}
	require.Len(t, sum, 1, "summaries in the history")
	assert.Equal(t, text, sum[0].Text())
	assert.Equal(t, loop.CharEstimator{}.Estimate(sum[0]), sum[0].Tokens, "the summary's size")
	c := events[loop.Compaction](res.Trace)
	require.Len(t, c, 1)
	assert.True(t, c[0].OK, "compaction %+v", c[0])
}

// A response that reports 0 input tokens is one an API can send.
func TestResponseWithZeroInputTokens(t *testing.T) {
	res := runModel(t, usageModel{usage: loop.Usage{OutputTokens: 7}})
	assert.Equal(t, loop.Completed, res.Terminal)
	assert.Zero(t, res.Stats.InputTokens)
	assert.Equal(t, 7, res.Stats.OutputTokens)
	last := res.State.Messages[len(res.State.Messages)-1]
	require.NotNil(t, last.Usage, "the reply's usage")
	assert.Equal(t, loop.Usage{OutputTokens: 7}, *last.Usage)
	assert.Equal(t, 7, last.Tokens, "the reply's size is its output")
}

// Float policy fields accept their bounds and nothing beyond them.
func TestPolicyFloatFieldsAtTheirBounds(t *testing.T) {
	for _, c := range []struct {
		field, value string
		ok           bool
	}{
		{"budget_completion_ratio", "1", true}, {"budget_completion_ratio", "1.001", false},
		{"budget_completion_ratio", "0.01", true}, {"budget_completion_ratio", "0.0099", false},
		{"backoff_jitter", "10", true}, {"backoff_jitter", "10.01", false},
		{"backoff_jitter", "0", true}, {"backoff_jitter", "-0.01", false},
	} {
		_, err := loop.Seed().With(c.field, c.value)
		if c.ok {
			assert.NoError(t, err, "%s=%s", c.field, c.value)
			continue
		}
		var pe *loop.PolicyError
		require.ErrorAs(t, err, &pe, "%s=%s", c.field, c.value)
		assert.Equal(t, c.field, pe.Field)
	}
	p := loop.Seed()
	p.BudgetCompletionRatio = 1
	assert.NoError(t, p.Validate(), "budget_completion_ratio at its maximum")
}

// Snip with the prompt and one exchange drops the prompt; with the
// prompt alone it has nothing whole to drop.
func TestSnipWithTwoExchanges(t *testing.T) {
	res := loop.OldestSnipper{}.Snip(loop.SnipInput{Messages: rounds(1, 100), Tokens: 300, Threshold: 250})
	assert.Equal(t, []string{"p"}, res.Removed)
	assert.Equal(t, 100, res.TokensFreed)
	assert.Equal(t, []string{"a1", "r1"}, msgIDs(res.Messages))
	alone := loop.OldestSnipper{}.Snip(loop.SnipInput{Messages: rounds(0, 100), Tokens: 300, Threshold: 50})
	assert.Empty(t, alone.Removed)
	assert.Len(t, alone.Messages, 1)
	at := loop.OldestSnipper{}.Snip(loop.SnipInput{Messages: rounds(1, 100), Tokens: 250, Threshold: 250})
	assert.Equal(t, []string{"p"}, at.Removed, "snip acts at the threshold")
}

// The usage counter anchors on the newest reply with usage, even when it
// is the first message.
func TestUsageCounterAnchorsOnTheFirstMessage(t *testing.T) {
	msgs := []loop.Message{
		{ID: "a", Role: loop.RoleAssistant, Tokens: 50, Usage: &loop.Usage{InputTokens: 1_000, CacheReadInputTokens: 200, CacheCreationInputTokens: 30, OutputTokens: 50}},
		{ID: "u", Role: loop.RoleUser, Tokens: 20},
	}
	assert.Equal(t, 1_300, loop.UsageCounter{}.Count(msgs), "usage of the first message plus what follows")
	assert.Equal(t, 70, loop.UsageCounter{}.Count([]loop.Message{{Tokens: 50, Role: loop.RoleAssistant}, {Tokens: 20, Role: loop.RoleUser}}),
		"without usage: the sum")
}

// A reply's size is the output the API reported, down to 1 token; with 0
// reported it is estimated.
func TestReplySizeFromReportedOutput(t *testing.T) {
	one := runModel(t, usageModel{usage: loop.Usage{InputTokens: 10, OutputTokens: 1}})
	last := one.State.Messages[len(one.State.Messages)-1]
	assert.Equal(t, 1, last.Tokens, "1 output token reported")
	zero := runModel(t, usageModel{usage: loop.Usage{InputTokens: 10}})
	last = zero.State.Messages[len(zero.State.Messages)-1]
	assert.Equal(t, loop.CharEstimator{}.Estimate(last), last.Tokens, "0 output tokens reported: estimated")
	assert.Positive(t, last.Tokens)
}

// §2.5 step 3: a model whose output maximum is the default cap has no
// higher cap to escalate to: a truncated reply goes straight to the
// recovery nudge, and every request keeps max_tokens at that maximum.
func TestNoEscalationWhenTheCapIsAlreadyTheModelsMaximum(t *testing.T) {
	small := loop.ModelInfo{Name: "small", ContextWindow: 200_000, MaxOutputTokens: loop.Seed().DefaultMaxTokens}
	res, model := run(t, fixture{primary: small, script: []fakemodel.Step{truncated, textStep}})
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{loop.MaxOutputTokensRecovery}, Turn: 1, Requests: 2,
		Recovery: 1})
	for i, req := range model.Requests {
		assert.Equal(t, small.MaxOutputTokens, req.MaxTokens, "request %d", i+1)
	}
}

// A stop-hook block cap of 1 lets one block through and overrides the
// next one in a row.
func TestStopHookBlockCapOfOne(t *testing.T) {
	hooks := &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Block: "again"}}}
	res, _ := run(t, fixture{policy: seedWith(t, "stop_hook_block_cap", "1"),
		script: []fakemodel.Step{{Text: "ok", Repeat: fakemodel.Forever}}, hooks: hooks, limit: 20})
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{loop.StopHookBlocking}, Turn: 1, Requests: 2, BlocksInRow: 1})
	var outcomes []loop.HookOutcome
	for _, h := range events[loop.StopHook](res.Trace) {
		outcomes = append(outcomes, h.Outcome)
	}
	assert.Equal(t, []loop.HookOutcome{loop.HookBlock, loop.HookCapOverride}, outcomes)
}

// A token budget of one token is a budget: replies that report no output
// have not reached it, so the loop nudges the model on until the returns
// diminish.
func TestTokenBudgetOfOneToken(t *testing.T) {
	model := &recordingUsageModel{usageModel: usageModel{usage: loop.Usage{InputTokens: 10}}}
	res, err := loop.Run(context.Background(), loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet, Tools: &fakemodel.Tools{},
		TokenBudget: 1}, []loop.Message{loop.UserText("fix the bug")})
	require.NoError(t, err)
	assert.Equal(t, loop.Completed, res.Terminal)
	B := loop.TokenBudgetContinuation
	assert.Equal(t, []loop.Transition{B, B, B}, res.Trace.Transitions(), "continued until the returns diminished")
	require.Len(t, model.last, 4)
	assert.Equal(t, "Stopped at 0% of the token target (0 / 1). Keep working; do not summarise.", model.last[1], "the nudge")
}

// recordingUsageModel is a usageModel that records the text of each
// request's last message.
type recordingUsageModel struct {
	usageModel
	last []string
}

func (m *recordingUsageModel) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	m.last = append(m.last, req.Messages[len(req.Messages)-1].Text())
	return m.usageModel.Stream(ctx, req, yield)
}

// Returns exactly at the diminishing delta are not diminishing: the run
// stops on two returns in a row under it, whichever of the two (the newest
// or the one before) is at the delta.
func TestTokenBudgetDeltaAtTheThresholdIsNotDiminishing(t *testing.T) {
	require.Equal(t, 500, loop.Seed().BudgetDiminishingDelta)
	at := func(n int) fakemodel.Step { return fakemodel.Step{Text: "working", OutputTokens: 500, Repeat: n} }
	small := func(n int) fakemodel.Step { return fakemodel.Step{Text: "ok", OutputTokens: 100, Repeat: n} }
	B := loop.TokenBudgetContinuation
	for _, c := range []struct {
		name   string
		script []fakemodel.Step
		conts  int
	}{
		// the 4th reply is small but the 3rd was at the delta; the 5th
		// makes two small ones in a row
		{"newest under, previous at", []fakemodel.Step{at(3), small(fakemodel.Forever)}, 4},
		// the 4th reply is at the delta after a small 3rd; the 5th is
		// small after one at the delta; the 6th makes two in a row
		{"newest at, previous under", []fakemodel.Step{at(2), small(1), at(1), small(fakemodel.Forever)}, 5},
	} {
		res, _ := run(t, fixture{budget: 100_000, script: c.script})
		want := make([]loop.Transition, c.conts)
		for i := range want {
			want[i] = B
		}
		t.Run(c.name, func(t *testing.T) {
			expect(t, res, outcome{Terminal: loop.Completed, Transitions: want, Turn: 1, Requests: c.conts + 1})
		})
	}
}

// A tool result that reports a size of one token is one token: only an
// unreported size (0) is estimated.
func TestToolResultOfOneToken(t *testing.T) {
	tools := &fakemodel.Tools{Default: fakemodel.Tool{Result: "a long enough result to estimate at several tokens", Tokens: 1}}
	res, _ := run(t, fixture{tools: tools, script: []fakemodel.Step{toolStep, textStep}})
	r := events[loop.ToolResultEvent](res.Trace)
	require.Len(t, r, 1)
	assert.Equal(t, 1, r[0].Tokens)
}

// A tool-result budget of one token is a budget: a larger result is cut
// to the placeholder's size.
func TestToolResultBudgetOfOneToken(t *testing.T) {
	tools := &fakemodel.Tools{Default: fakemodel.Tool{Tokens: 100}}
	res, model := run(t, fixture{policy: seedWith(t, "tool_result_budget", "1"), tools: tools, script: []fakemodel.Step{toolStep, textStep}})
	require.Equal(t, loop.Completed, res.Terminal)
	require.Len(t, model.Requests, 2)
	msgs := model.Requests[1].Messages
	result := msgs[len(msgs)-1]
	require.Len(t, result.Blocks, 1)
	assert.Equal(t, "[tool result truncated to 10 of 100 tokens]", result.Blocks[0].Text)
	assert.Equal(t, 10, result.Blocks[0].Tokens)
}

// A tool result exactly at the tool-result budget is within it: its
// message is left as it was (the size the caller gave it included), also
// when another result in the same pass is cut.
func TestToolResultExactlyAtTheBudget(t *testing.T) {
	budget := loop.Seed().ToolResultBudget
	initial := bigHistory(2, 1_000)
	initial[2].Tokens, initial[2].Blocks[0].Tokens = budget+20, budget
	initial[4].Tokens, initial[4].Blocks[0].Tokens = budget+10_000, budget+10_000
	res, model := run(t, fixture{initial: initial, script: []fakemodel.Step{textStep}})
	require.Equal(t, loop.Completed, res.Terminal)
	st := events[loop.Stage](res.Trace)
	require.NotEmpty(t, st)
	assert.Equal(t, loop.StageToolResultBudget, st[0].Stage)
	assert.Equal(t, 1, st[0].Changed, "only the result over the budget is cut")
	require.Len(t, model.Requests, 1)
	sent := model.Requests[0].Messages
	assert.Equal(t, budget+20, sent[2].Tokens, "the message of the result at the budget keeps its size")
	assert.Equal(t, budget, sent[2].Blocks[0].Tokens)
}

// The tool-result budget cuts the largest result of a message first, the
// earliest of equal ones, and only as much as it must; text is never cut.
func TestToolResultBudgetCutsTheLargestFirst(t *testing.T) {
	budget := loop.Seed().ToolResultBudget
	result := func(id string, tokens int) loop.Block {
		return loop.Block{Type: loop.BlockToolResult, ToolUseID: id, Text: "data", Tokens: tokens}
	}
	use := func(id string) loop.Block {
		return loop.Block{Type: loop.BlockToolUse, ID: id, Name: "Read", Input: "{}"}
	}
	note := loop.Block{Type: loop.BlockText, Text: "note"}
	uses := func(results []loop.Block) []loop.Block {
		var out []loop.Block
		for _, b := range results {
			if b.Type == loop.BlockToolResult {
				out = append(out, use(b.ToolUseID))
			}
		}
		return out
	}
	cut := func(keep, size int) string {
		return fmt.Sprintf("[tool result truncated to %d of %d tokens]", keep, size)
	}
	for _, c := range []struct {
		name   string
		blocks []loop.Block
		want   []string
	}{
		{"largest first", []loop.Block{result("t1", budget+10_000), result("t2", 20_000)},
			[]string{cut(budget-20_000, budget+10_000), "data"}},
		{"largest first, after a text block", []loop.Block{note, result("t1", budget+10_000), result("t2", 20_000)},
			[]string{"note", cut(budget-20_000, budget+10_000), "data"}},
		{"equal ones: the earliest", []loop.Block{result("t1", 40_000), result("t2", 40_000)},
			[]string{cut(budget-40_000, 40_000), "data"}},
		// cutting the first two to the placeholder is not enough: the
		// third is cut to what is left
		{"several cuts", []loop.Block{result("t1", budget+10_000), result("t2", budget+10_000), result("t3", budget+10_000)},
			[]string{cut(10, budget+10_000), cut(10, budget+10_000), cut(budget-20, budget+10_000)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			initial := []loop.Message{loop.UserText("read both"),
				{Role: loop.RoleAssistant, Blocks: uses(c.blocks)},
				{Role: loop.RoleUser, Blocks: c.blocks}}
			res, model := run(t, fixture{initial: initial, script: []fakemodel.Step{textStep}})
			require.Equal(t, loop.Completed, res.Terminal)
			require.Len(t, model.Requests, 1)
			var got []string
			for _, b := range model.Requests[0].Messages[2].Blocks {
				got = append(got, b.Text)
			}
			assert.Equal(t, c.want, got)
		})
	}
}
