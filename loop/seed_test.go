package loop_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each seed transition and terminal reached through the fakes, with the
// full transition sequence, the terminal and the counters.

func seedWith(t *testing.T, kv ...string) loop.Policy {
	t.Helper()
	p := loop.Seed()
	for i := 0; i < len(kv); i += 2 {
		var err error
		p, err = p.With(kv[i], kv[i+1])
		require.NoError(t, err)
	}
	return p
}

func TestSeedNextTurnThenCompleted(t *testing.T) {
	res, model := run(t, fixture{script: []fakemodel.Step{toolStep, textStep}})
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{loop.NextTurn}, Turn: 2, Requests: 2})
	got := model.Requests[1].Messages
	require.Len(t, got, 3, "the second request")
	assert.True(t, got[2].IsToolResult(), "the second request carries the tool result")
}

func TestSeedReactiveCompactRetry(t *testing.T) {
	res, model := run(t, fixture{script: []fakemodel.Step{toolStep, ptl, summary, textStep}})
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{loop.NextTurn, loop.ReactiveCompactRetry},
		Turn: 2, Requests: 4, Attempted: true})
	assert.Equal(t, loop.PurposeCompact, model.Requests[2].Purpose, "the third request")
	last := model.Requests[3].Messages
	require.Len(t, last, 1, "the retry after a seed reactive compact carries only the summary")
	assert.True(t, last[0].CompactSummary)
}

func TestSeedPromptTooLongWhenReactiveCompactAlreadyTried(t *testing.T) {
	res, _ := run(t, fixture{script: []fakemodel.Step{toolStep, ptl, summary, ptl}})
	expect(t, res, outcome{Terminal: loop.PromptTooLong, Transitions: []loop.Transition{loop.NextTurn, loop.ReactiveCompactRetry},
		Turn: 2, Requests: 4, Attempted: true})
	assert.Empty(t, events[loop.StopHook](res.Trace), "stop hooks on the prompt-too-long path")
	last := res.State.Messages[len(res.State.Messages)-1]
	assert.True(t, last.APIError, "the withheld error is emitted: last message %+v", last)
	assert.Contains(t, last.Text(), "prompt is too long")
}

func TestSeedPromptTooLongWhenCompactionFails(t *testing.T) {
	res, _ := run(t, fixture{script: []fakemodel.Step{toolStep, ptl},
		compactor: &fakemodel.Compactor{Outcomes: []fakemodel.CompactOutcome{{Err: "summary model down"}}}})
	expect(t, res, outcome{Terminal: loop.PromptTooLong, Transitions: []loop.Transition{loop.NextTurn}, Turn: 2, Requests: 2})
	comp := events[loop.Compaction](res.Trace)
	require.Len(t, comp, 1)
	assert.False(t, comp[0].OK)
	assert.Contains(t, comp[0].Error, "summary model down")
}

func TestSeedCollapseDrainRetryNeverTwiceInARow(t *testing.T) {
	// 153k tokens: over the collapse staging threshold (80% of 180k)
	res, _ := run(t, fixture{initial: bigHistory(20, 7_500), script: []fakemodel.Step{ptl, ptl, summary, textStep}})
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{loop.CollapseDrainRetry, loop.ReactiveCompactRetry},
		Turn: 1, Requests: 4, Attempted: true})
	drains := 0
	for _, st := range events[loop.Stage](res.Trace) {
		if st.Stage == loop.StageCollapseDrain {
			drains++
			assert.Positive(t, st.Changed, "the drain commits: %+v", st)
			assert.NotEmpty(t, st.Removed, "the drain removes: %+v", st)
			assert.Less(t, st.TokensAfter, st.TokensBefore, "the drain shrinks: %+v", st)
		}
	}
	assert.Equal(t, 1, drains, "drains")
}

func TestSeedEscalateThenRecover(t *testing.T) {
	res, model := run(t, fixture{script: []fakemodel.Step{truncated, truncated, textStep}})
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{loop.MaxOutputTokensEscalate, loop.MaxOutputTokensRecovery},
		Turn: 1, Requests: 3, Recovery: 1})
	var caps []int
	for _, r := range model.Requests {
		caps = append(caps, r.MaxTokens)
	}
	if diff := cmp.Diff([]int{8_000, 64_000, 8_000}, caps); diff != "" {
		t.Errorf("max_tokens per request (-want +got):\n%s", diff)
	}
	// escalation drops the truncated output; recovery keeps it and nudges
	assert.Len(t, model.Requests[1].Messages, 1, "the escalated retry carries the same message")
	rec := model.Requests[2].Messages
	require.Len(t, rec, 3, "the recovery request")
	assert.Equal(t, loop.StopMaxTokens, rec[1].StopReason)
	assert.True(t, rec[2].Meta)
	assert.Equal(t, loop.RecoveryNudge, rec[2].Text())
}

func TestSeedEscalationCappedAtModelMaximum(t *testing.T) {
	small := loop.ModelInfo{Name: "small", ContextWindow: 200_000, MaxOutputTokens: 32_000}
	_, model := run(t, fixture{primary: small, script: []fakemodel.Step{truncated, textStep}})
	assert.Equal(t, 32_000, model.Requests[1].MaxTokens, "escalated max_tokens: the model's")
}

// The source clears the override on every continue, so escalation fires
// again after each recovery: the known finding of docs/spec.md §5.
func TestSeedEscalationRefiresAfterRecovery(t *testing.T) {
	script := []fakemodel.Step{{Kind: fakemodel.Truncated, Repeat: 8}, textStep}
	res, _ := run(t, fixture{script: script})
	E, R := loop.MaxOutputTokensEscalate, loop.MaxOutputTokensRecovery
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{E, R, E, R, E, R, E},
		Turn: 1, Requests: 8, Recovery: 3})

	once, _ := run(t, fixture{policy: seedWith(t, "escalate_once_per_stretch", "true"), script: script})
	expect(t, once, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{E, R, R, R}, Turn: 1, Requests: 5, Recovery: 3})
	last := once.State.Messages[len(once.State.Messages)-1]
	assert.True(t, last.APIError, "exhausted recovery emits the withheld error; last message %q", last.Text())
}

func TestSeedStopHookBlockingThenPass(t *testing.T) {
	hooks := &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Block: "tests fail"}, {}}}
	res, model := run(t, fixture{script: []fakemodel.Step{textStep, textStep}, hooks: hooks})
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{loop.StopHookBlocking}, Turn: 1, Requests: 2, BlocksInRow: 1})
	if diff := cmp.Diff([]bool{false, true}, hooks.Active()); diff != "" {
		t.Errorf("stopHookActive given to the hooks (-want +got):\n%s", diff)
	}
	fb := model.Requests[1].Messages
	assert.Equal(t, loop.StopHookFeedbackPrefix+"tests fail", fb[len(fb)-1].Text(), "feedback message")
}

func TestSeedStopHookPrevented(t *testing.T) {
	res, _ := run(t, fixture{script: []fakemodel.Step{textStep},
		hooks: &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Prevent: true, Reason: "policy says stop"}}}})
	expect(t, res, outcome{Terminal: loop.StopHookPrevented, Turn: 1, Requests: 1})
}

func TestSeedStopHookFailureIsAPass(t *testing.T) {
	for _, o := range []fakemodel.StopOutcome{{Err: "hook crashed"}, {Panic: "hook panicked"}} {
		res, _ := run(t, fixture{script: []fakemodel.Step{textStep}, hooks: &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{o}}})
		expect(t, res, outcome{Terminal: loop.Completed, Turn: 1, Requests: 1})
		h := events[loop.StopHook](res.Trace)
		require.Len(t, h, 1)
		assert.Equal(t, loop.HookFail, h[0].Outcome)
		assert.NotEmpty(t, h[0].Error)
	}
}

func TestSeedTokenBudgetContinuation(t *testing.T) {
	step := fakemodel.Step{Text: "working", OutputTokens: 3_000}
	res, model := run(t, fixture{budget: 10_000, script: []fakemodel.Step{step, step, step}})
	B := loop.TokenBudgetContinuation
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{B, B}, Turn: 1, Requests: 3})
	assert.Contains(t, model.Requests[1].Messages[2].Text(), "30%", "the nudge states the percentage")
}

func TestSeedTokenBudgetStopsOnDiminishingReturns(t *testing.T) {
	big := fakemodel.Step{Text: "working", OutputTokens: 5_000, Repeat: 3}
	tiny := fakemodel.Step{Text: "ok", OutputTokens: 100, Repeat: 2}
	res, _ := run(t, fixture{budget: 100_000, script: []fakemodel.Step{big, tiny}})
	B := loop.TokenBudgetContinuation
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{B, B, B, B}, Turn: 1, Requests: 5})
}

func TestSeedBlockingLimitWithAutoCompactOff(t *testing.T) {
	p := seedWith(t, "context_collapse", "false", "auto_compact", "false", "snip", "false")
	res, model := run(t, fixture{policy: p, initial: bigHistory(24, 7_500), script: []fakemodel.Step{textStep}})
	expect(t, res, outcome{Terminal: loop.BlockingLimit, Turn: 1, Requests: 0})
	assert.Empty(t, model.Requests, "requests past the blocking limit")
	// just under the limit the request goes out
	under, _ := run(t, fixture{policy: p, initial: bigHistory(22, 7_500), script: []fakemodel.Step{textStep}})
	expect(t, under, outcome{Terminal: loop.Completed, Turn: 1, Requests: 1})
}

func TestSeedModelErrorOnlyForThrownFailures(t *testing.T) {
	res, _ := run(t, fixture{script: []fakemodel.Step{toolStep, {Kind: fakemodel.Thrown}}})
	expect(t, res, outcome{Terminal: loop.ModelError, Transitions: []loop.Transition{loop.NextTurn}, Turn: 2, Requests: 2})
	assert.Empty(t, events[loop.StopFailureHook](res.Trace), "a thrown failure does not reach the stop branch")
	// the harness's own mistake (script run out) is thrown too, with the
	// reason in the terminal event
	out, _ := run(t, fixture{script: []fakemodel.Step{toolStep}})
	term := events[loop.TerminalEvent](out.Trace)
	require.Len(t, term, 1)
	assert.Equal(t, loop.ModelError, out.Terminal)
	assert.Contains(t, term[0].Message, "script exhausted")
}

// docs/spec.md §2.3, §2.5.5: an API error becomes an API-error message, the stop
// branch runs the stop-failure hooks (not the stop hooks) and the run
// completes.
func TestSeedAPIErrorCompletesAfterTheStopFailureHooks(t *testing.T) {
	hooks := &fakemodel.StopHooks{}
	failHooks := &fakemodel.StopFailureHooks{}
	res, _ := run(t, fixture{script: []fakemodel.Step{toolStep, {Kind: fakemodel.ServerError}}, hooks: hooks, failHooks: failHooks})
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{loop.NextTurn}, Turn: 2, Requests: 2})

	last := res.State.Messages[len(res.State.Messages)-1]
	assert.True(t, last.APIError, "the last message is the API error")
	assert.Contains(t, last.Text(), "500 server_error")
	assert.Empty(t, hooks.Inputs, "the ordinary stop hooks do not run after an API error")
	require.Len(t, failHooks.Inputs, 1)
	assert.Equal(t, last.Text(), failHooks.Inputs[0].Error)
	assert.Equal(t, 2, failHooks.Inputs[0].Turn)
	assert.Equal(t, last.ID, failHooks.Inputs[0].Messages[len(failHooks.Inputs[0].Messages)-1].ID)

	sf := events[loop.StopFailureHook](res.Trace)
	require.Len(t, sf, 1)
	assert.Equal(t, loop.StopFailureHook{Error: last.Text(), Ran: true}, sf[0])
}

func TestSeedStopFailureHooksCannotChangeTheEnd(t *testing.T) {
	for _, o := range []fakemodel.StopFailureOutcome{{Err: "hook exited 2"}, {Panic: "hook crashed"}} {
		failHooks := &fakemodel.StopFailureHooks{Outcomes: []fakemodel.StopFailureOutcome{o}}
		res, _ := run(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.Overloaded}}, failHooks: failHooks})
		assert.Equal(t, loop.Completed, res.Terminal)
		sf := events[loop.StopFailureHook](res.Trace)
		require.Len(t, sf, 1)
		assert.True(t, sf[0].Ran)
		assert.Contains(t, sf[0].Failure, "hook")
	}
	// no stop-failure hooks configured: the step still shows in the trace
	res, _ := run(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.Overloaded}}})
	sf := events[loop.StopFailureHook](res.Trace)
	require.Len(t, sf, 1)
	assert.False(t, sf[0].Ran)
	assert.Equal(t, loop.Completed, res.Terminal)
}

// docs/spec.md §2.5.4: when the recoveries are used up the withheld error is
// emitted and the loop ends through step 5.
func TestSeedTruncationExhaustedEndsThroughTheStopFailureHooks(t *testing.T) {
	failHooks := &fakemodel.StopFailureHooks{}
	res, _ := run(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.Truncated, Repeat: 8}}, policy: seedWith(t, "escalation", "false"), failHooks: failHooks})
	assert.Equal(t, loop.Completed, res.Terminal)
	require.Len(t, failHooks.Inputs, 1)
	assert.Contains(t, failHooks.Inputs[0].Error, "truncated at max_tokens")
}

func TestSeedAPIErrorAfterToolUsesGivesSyntheticResults(t *testing.T) {
	step := fakemodel.Step{Kind: fakemodel.StreamError, After: 2, ToolUses: []fakemodel.ToolUse{{Name: "Read"}, {Name: "Bash"}}}
	res, _ := run(t, fixture{script: []fakemodel.Step{step}})
	expect(t, res, outcome{Terminal: loop.Completed, Turn: 1, Requests: 1})
	synth := 0
	for _, r := range events[loop.ToolResultEvent](res.Trace) {
		if r.Synthetic {
			synth++
		}
	}
	assert.Equal(t, 2, synth, "synthetic results")
	// the same failure thrown rather than answered by the API
	thrown := fakemodel.Step{Kind: fakemodel.Thrown}
	res, _ = run(t, fixture{script: []fakemodel.Step{thrown}})
	expect(t, res, outcome{Terminal: loop.ModelError, Turn: 1, Requests: 1})
}

func TestSeedImageError(t *testing.T) {
	res, _ := run(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.ImageSize}}})
	expect(t, res, outcome{Terminal: loop.ImageError, Turn: 1, Requests: 1})
	media := fakemodel.Step{Kind: fakemodel.MediaTooLarge}
	res, _ = run(t, fixture{script: []fakemodel.Step{toolStep, media, summary, media}})
	expect(t, res, outcome{Terminal: loop.ImageError, Transitions: []loop.Transition{loop.NextTurn, loop.ReactiveCompactRetry},
		Turn: 2, Requests: 4, Attempted: true})
}

func TestSeedAbortedStreamingAnswersToolUses(t *testing.T) {
	step := fakemodel.Step{Kind: fakemodel.Abort, After: 3, Text: "let me", ToolUses: []fakemodel.ToolUse{{Name: "Read"}, {Name: "Bash"}}}
	res, _ := run(t, fixture{script: []fakemodel.Step{toolStep, step}})
	expect(t, res, outcome{Terminal: loop.AbortedStreaming, Transitions: []loop.Transition{loop.NextTurn}, Turn: 2, Requests: 2})
	last := res.State.Messages[len(res.State.Messages)-1]
	require.True(t, last.IsToolResult(), "last message %+v", last)
	require.Len(t, last.Blocks, 2)
	assert.Equal(t, loop.InterruptedResult, last.Blocks[0].Text)
}

func TestSeedAbortedTools(t *testing.T) {
	tools := &fakemodel.Tools{ByName: map[string]fakemodel.Tool{"Read": {Abort: true}, "Bash": {Slow: true}}}
	step := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}, {Name: "Bash"}}}
	res, _ := run(t, fixture{script: []fakemodel.Step{step}, tools: tools})
	expect(t, res, outcome{Terminal: loop.AbortedTools, Turn: 1, Requests: 1})
	for _, r := range events[loop.ToolResultEvent](res.Trace) {
		assert.True(t, r.Synthetic, "result %s is synthetic", r.ToolUseID)
	}
}

func TestSeedHookStoppedAfterTheBatch(t *testing.T) {
	tools := &fakemodel.Tools{ByName: map[string]fakemodel.Tool{"Read": {PreventContinuation: true}, "Bash": {Result: "ran"}}}
	step := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}, {Name: "Bash"}}}
	res, _ := run(t, fixture{script: []fakemodel.Step{step}, tools: tools})
	expect(t, res, outcome{Terminal: loop.HookStopped, Turn: 1, Requests: 1})
	assert.Len(t, tools.CallIDs(), 2, "the batch finishes before stopping")
}

func TestSeedMaxTurns(t *testing.T) {
	endless := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}, Repeat: fakemodel.Forever}
	res, _ := run(t, fixture{policy: seedWith(t, "max_turns", "3"), script: []fakemodel.Step{endless}})
	expect(t, res, outcome{Terminal: loop.MaxTurns, Transitions: []loop.Transition{loop.NextTurn, loop.NextTurn}, Turn: 3, Requests: 3})
	one, _ := run(t, fixture{policy: seedWith(t, "max_turns", "1"), script: []fakemodel.Step{endless}})
	expect(t, one, outcome{Terminal: loop.MaxTurns, Turn: 1, Requests: 1})
	for _, r := range []*loop.Result{res, one} {
		assert.Equal(t, []loop.Notice{{Text: loop.MaxTurnsNotice}}, events[loop.Notice](r.Trace), "the user is told why the run stopped")
	}
}

func TestSeedFallbackWithToolUsesInFlight(t *testing.T) {
	three := fakemodel.Step{Kind: fakemodel.FallbackTriggered, After: 3,
		ToolUses: []fakemodel.ToolUse{{Name: "Read"}, {Name: "Read"}, {Name: "Bash"}}}
	haiku := loop.ModelInfo{Name: "haiku", ContextWindow: 200_000, MaxOutputTokens: 8_000}
	res, model := run(t, fixture{fallback: haiku, script: []fakemodel.Step{three, textStep}})
	expect(t, res, outcome{Terminal: loop.Completed, Turn: 1, Requests: 2})
	fb := events[loop.Fallback](res.Trace)
	require.Len(t, fb, 1)
	assert.Equal(t, "haiku", fb[0].To)
	assert.Len(t, fb[0].Orphans, 3)
	assert.Equal(t, "haiku", model.Requests[1].Model, "the retry's model")
	assert.Equal(t, "haiku", res.State.ToolUseContext.Model)
	// without a fallback model the error is an ordinary API error: the
	// seed completes after the stop-failure hooks
	none, _ := run(t, fixture{script: []fakemodel.Step{three}})
	expect(t, none, outcome{Terminal: loop.Completed, Turn: 1, Requests: 1})
	assert.Len(t, events[loop.StopFailureHook](none.Trace), 1)
}

func TestSeedPanickingToolBecomesAnErrorResult(t *testing.T) {
	tools := &fakemodel.Tools{ByName: map[string]fakemodel.Tool{"Read": {Panic: "nil map write"}}}
	res, _ := run(t, fixture{script: []fakemodel.Step{toolStep, textStep}, tools: tools})
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{loop.NextTurn}, Turn: 2, Requests: 2})
	r := events[loop.ToolResultEvent](res.Trace)
	require.Len(t, r, 1)
	assert.True(t, r[0].IsError)
	assert.Equal(t, `tool "Read" panicked: nil map write`, r[0].Error, "the error names the tool")
	result := res.State.Messages[2]
	require.Len(t, result.Blocks, 1)
	assert.Equal(t, `Error: tool "Read" panicked: nil map write`, result.Blocks[0].Text, "the model is told which tool failed")
}

func TestSeedPanickingCompactorIsAFailedCompaction(t *testing.T) {
	res, _ := run(t, fixture{script: []fakemodel.Step{toolStep, ptl},
		compactor: &fakemodel.Compactor{Outcomes: []fakemodel.CompactOutcome{{Panic: "boom"}}}})
	expect(t, res, outcome{Terminal: loop.PromptTooLong, Transitions: []loop.Transition{loop.NextTurn}, Turn: 2, Requests: 2})
}

func TestSeedTruncatedToolInputGetsAnInputError(t *testing.T) {
	step := fakemodel.Step{Kind: fakemodel.Truncated, ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"path":"a.go"}`}}}
	res, _ := run(t, fixture{script: []fakemodel.Step{step, textStep}})
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{loop.NextTurn}, Turn: 2, Requests: 2})
	r := events[loop.ToolResultEvent](res.Trace)
	require.Len(t, r, 1)
	assert.True(t, r[0].IsError, "cut input gives an error result")
	assert.Empty(t, events[loop.Withheld](res.Trace), "a truncated reply with a tool_use goes to the tools: nothing is withheld")
}

func TestSeedToolUseSummaryEmittedNextIteration(t *testing.T) {
	sum := &fakemodel.Summarizer{Outcomes: []fakemodel.SummaryOutcome{{Text: "read a.go"}}}
	res, _ := run(t, fixture{script: []fakemodel.Step{toolStep, textStep}, summary: sum})
	var kinds []loop.EventKind
	for _, e := range res.Trace {
		kinds = append(kinds, e.EventKind())
	}
	want := []loop.EventKind{loop.KindIterationStart, loop.KindRequest, loop.KindResponse, loop.KindToolBatch, loop.KindToolResult,
		loop.KindTransition, loop.KindState, loop.KindIterationStart, loop.KindRequest, loop.KindResponse, loop.KindToolSummary,
		loop.KindState, loop.KindTerminal}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("event kinds (-want +got):\n%s", diff)
	}
}

func TestHostileResponsesEndTheRunWithAnError(t *testing.T) {
	dup := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{ID: "same", Name: "Read"}, {ID: "same", Name: "Read"}}}
	res, _ := run(t, fixture{script: []fakemodel.Step{dup}})
	term := events[loop.TerminalEvent](res.Trace)
	assert.Equal(t, loop.ModelError, res.Terminal)
	require.Len(t, term, 1)
	assert.Contains(t, term[0].Message, `tool_use id "same" is not unique`)
}

func TestRunRejectsBadInput(t *testing.T) {
	model := &fakemodel.Model{}
	cases := map[string]struct {
		cfg  loop.Config
		msgs []loop.Message
		want string
	}{
		"nil model":     {loop.Config{Policy: loop.Seed(), Primary: sonnet}, nil, "Model is nil"},
		"bad policy":    {loop.Config{Policy: loop.Policy{}, Model: model, Primary: sonnet}, nil, "policy field"},
		"no window":     {loop.Config{Policy: loop.Seed(), Model: model, Primary: loop.ModelInfo{Name: "x"}}, nil, "must be positive"},
		"negative size": {loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet}, []loop.Message{{Role: loop.RoleUser, Tokens: -1}}, "message 0"},
		"bad role":      {loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet}, []loop.Message{{Role: "system"}}, `role "system"`},
		"duplicate ids": {loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet}, []loop.Message{{ID: "a", Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockText, Text: "x"}}}, {ID: "a", Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockText, Text: "y"}}}}, `id "a" is also the id of message 0`},
	}
	for name, c := range cases {
		_, err := loop.Run(t.Context(), c.cfg, c.msgs)
		assert.ErrorContains(t, err, c.want, name)
	}
}

func TestIterationLimitHaltsANeverEndingRun(t *testing.T) {
	hooks := &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Block: "again"}}}
	res, _ := run(t, fixture{script: []fakemodel.Step{{Text: "ok", Repeat: fakemodel.Forever}}, hooks: hooks, limit: 50})
	assert.True(t, res.Halted)
	assert.Empty(t, res.Terminal)
	assert.Equal(t, 50, res.Stats.Iterations)
	// the same hook with the block cap terminates
	capped, _ := run(t, fixture{policy: seedWith(t, "stop_hook_block_cap", "3"),
		script: []fakemodel.Step{{Text: "ok", Repeat: fakemodel.Forever}}, hooks: hooks, limit: 50})
	B := loop.StopHookBlocking
	expect(t, capped, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{B, B, B}, Turn: 1, Requests: 4, BlocksInRow: 3})
}

func TestSeedMicrocompactClearsOldResults(t *testing.T) {
	tools := &fakemodel.Tools{Default: fakemodel.Tool{Tokens: 3_000}}
	step := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}, Repeat: 7}
	res, model := run(t, fixture{script: []fakemodel.Step{step, textStep}, tools: tools})
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{
		loop.NextTurn, loop.NextTurn, loop.NextTurn, loop.NextTurn, loop.NextTurn, loop.NextTurn, loop.NextTurn}, Turn: 8, Requests: 8})
	var stages []loop.Stage
	for _, st := range events[loop.Stage](res.Trace) {
		if st.Stage == loop.StageMicrocompact {
			stages = append(stages, st)
		}
	}
	// results 1 and 2 fall out of the newest 5 before requests 7 and 8
	require.Len(t, stages, 2, "microcompact stages")
	for _, st := range stages {
		assert.Equal(t, 1, st.Changed, "microcompact stage %+v clears one result", st)
		assert.GreaterOrEqual(t, st.TokensBefore-st.TokensAfter, 2_900, "microcompact stage %+v clears a 3000-token result", st)
	}
	// what the model was sent agrees with what the trace says
	last := model.Requests[7]
	assert.Equal(t, last.InputTokens, loop.SumTokens(last.Messages), "the request's input against its messages' sum")
	cleared := 0
	for _, m := range last.Messages {
		for _, b := range m.Blocks {
			if b.Type == loop.BlockToolResult && b.Text == loop.ClearedToolResult {
				cleared++
			}
		}
	}
	assert.Equal(t, 2, cleared, "results cleared in the last request")
}

// The blocking limit keys on the user's auto-compact setting: with it off
// the limit holds even while context collapse is on; with it on, collapse
// owns overflow and the request goes out.
func TestSeedBlockingLimitFollowsTheUsersAutoCompactSetting(t *testing.T) {
	over := bigHistory(24, 7_500) // 183,400 tokens: over the 177,000 limit
	off, _ := run(t, fixture{policy: seedWith(t, "auto_compact", "false", "snip", "false"), initial: over, script: []fakemodel.Step{textStep}})
	expect(t, off, outcome{Terminal: loop.BlockingLimit, Turn: 1})
	on, _ := run(t, fixture{policy: seedWith(t, "snip", "false"), initial: over, script: []fakemodel.Step{textStep}})
	assert.Equal(t, loop.Completed, on.Terminal, "collapse on, auto-compact on")
	assert.Equal(t, 1, on.Stats.Requests, "collapse on, auto-compact on: the request is sent")
}
