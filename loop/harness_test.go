package loop_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sonnet is the 200k model most tests run against.
var sonnet = loop.ModelInfo{Name: "sonnet", ContextWindow: 200_000, MaxOutputTokens: 64_000}

// fixture is one run's inputs, all plain data.
type fixture struct {
	policy    loop.Policy
	primary   loop.ModelInfo
	fallback  loop.ModelInfo
	script    []fakemodel.Step
	tools     *fakemodel.Tools
	hooks     *fakemodel.StopHooks
	failHooks *fakemodel.StopFailureHooks
	compactor loop.Compactor
	summary   loop.ToolUseSummarizer
	initial   []loop.Message
	budget    int
	limit     int
}

// outcome is what a run did, in the shape the tests compare.
type outcome struct {
	Terminal    loop.Terminal
	Transitions []loop.Transition
	Turn        int
	Requests    int
	Recovery    int
	Attempted   bool
	BlocksInRow int
}

// run runs f with the abort wiring done and checks that every tool_use in
// the final history has exactly one tool_result, that each request's
// input_tokens is its messages' sum, that the state records add up to the
// final history, and that the trace reads back from its JSON Lines as it
// was.
func run(t *testing.T, f fixture) (*loop.Result, *fakemodel.Model) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if f.primary.Name == "" {
		f.primary = sonnet
	}
	if f.policy.Name == "" {
		f.policy = loop.Seed()
	}
	if f.tools == nil {
		f.tools = &fakemodel.Tools{}
	}
	f.tools.Cancel = cancel
	model := &fakemodel.Model{Script: f.script, Window: f.primary.ContextWindow, Cancel: cancel, KeepMessages: true}
	cfg := loop.Config{Policy: f.policy, Model: model, Primary: f.primary, FallbackModel: f.fallback,
		ToolNames: []string{"Read", "Bash"}, Tools: f.tools, Compactor: f.compactor, Summarizer: f.summary,
		TokenBudget: f.budget, IterationLimit: f.limit}
	if f.hooks != nil {
		cfg.StopHooks = f.hooks
	}
	if f.failHooks != nil {
		cfg.StopFailureHooks = f.failHooks
	}
	initial := f.initial
	if initial == nil {
		initial = []loop.Message{loop.UserText("fix the bug")}
	}
	res, err := loop.Run(ctx, cfg, initial)
	require.NoError(t, err, "Run")
	checkPairs(t, res.State.Messages)
	for i, req := range model.Requests {
		assert.Equal(t, req.InputTokens, loop.SumTokens(req.Messages), "request %d (%s): input_tokens against its messages' sum", i+1, req.Purpose)
	}
	checkRecords(t, res)
	var jl bytes.Buffer
	require.NoError(t, res.Trace.WriteJSONL(&jl))
	back, err := loop.ReadJSONL(&jl)
	require.NoError(t, err)
	if diff := cmp.Diff(res.Trace, back); diff != "" {
		t.Errorf("the trace read back from its JSON Lines (-run +read):\n%s", diff)
	}
	return res, model
}

// summarise reduces a result to an outcome.
func summarise(res *loop.Result) outcome {
	return outcome{
		Terminal:    res.Terminal,
		Transitions: res.Trace.Transitions(),
		Turn:        res.State.TurnCount,
		Requests:    res.Stats.Requests,
		Recovery:    res.State.MaxOutputTokensRecoveryCount,
		Attempted:   res.State.HasAttemptedReactiveCompact,
		BlocksInRow: res.State.StopHookBlocksInRow,
	}
}

// expect compares a run's outcome with want, printing the trace on a
// mismatch.
func expect(t *testing.T, res *loop.Result, want outcome) {
	t.Helper()
	if diff := cmp.Diff(want, summarise(res)); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
		var b strings.Builder
		loop.WriteReadable(&b, res.Trace)
		t.Logf("trace:\n%s", b.String())
	}
}

// checkPairs fails unless every tool_use has exactly one tool_result after
// it and every tool_result answers an earlier tool_use.
func checkPairs(t *testing.T, msgs []loop.Message) {
	t.Helper()
	uses, results := map[string]int{}, map[string]int{}
	var order []string
	for _, m := range msgs {
		for _, b := range m.Blocks {
			switch b.Type {
			case loop.BlockToolUse:
				uses[b.ID]++
				order = append(order, b.ID)
			case loop.BlockToolResult:
				assert.Positive(t, uses[b.ToolUseID], "tool_result for %s has a tool_use before it", b.ToolUseID)
				results[b.ToolUseID]++
			}
		}
	}
	for _, id := range order {
		assert.Equal(t, 1, uses[id], "uses of tool_use %s", id)
		assert.Equal(t, 1, results[id], "results of tool_use %s", id)
	}
}

// Steps used throughout.
var (
	toolStep  = fakemodel.Step{Text: "reading", ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"path":"a.go"}`}}, OutputTokens: 100}
	textStep  = fakemodel.Step{Text: "done", OutputTokens: 50}
	summary   = fakemodel.Step{Text: "<summary>what happened</summary>", OutputTokens: 2_000}
	ptl       = fakemodel.Step{Kind: fakemodel.PromptTooLong}
	truncated = fakemodel.Step{Kind: fakemodel.Truncated, Text: "partial answer"}
)

// events returns the trace's events of type E.
func events[E loop.Event](tr loop.Trace) []E {
	var out []E
	for _, e := range tr {
		if x, ok := e.(E); ok {
			out = append(out, x)
		}
	}
	return out
}

// bigHistory is a prompt followed by n tool exchanges of size tokens each
// result, with usage on the replies as the model would have reported it.
func bigHistory(n, size int) []loop.Message {
	msgs := []loop.Message{{Role: loop.RoleUser, Tokens: 1_000, Blocks: []loop.Block{{Type: loop.BlockText, Text: "task"}}}}
	total := 1_000
	for i := 0; i < n; i++ {
		id := "hist_" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		u := loop.Usage{InputTokens: total, OutputTokens: 100}
		msgs = append(msgs,
			loop.Message{Role: loop.RoleAssistant, Tokens: 100, Usage: &u, Blocks: []loop.Block{{Type: loop.BlockToolUse, ID: id, Name: "Read", Input: "{}"}}},
			loop.Message{Role: loop.RoleUser, Tokens: size, Blocks: []loop.Block{{Type: loop.BlockToolResult, ToolUseID: id, Text: "x", Tokens: size}}})
		total += 100 + size
	}
	return msgs
}
