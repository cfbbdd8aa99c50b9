package properties

import (
	"strings"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests hand-build runs, each breaking or keeping one invariant,
// so that every check is seen to fail where it must.

// tr builds a transition event with its field changes ("field:from:to").
func tr(t loop.Transition, changes ...string) loop.TransitionEvent {
	ev := loop.TransitionEvent{Transition: t}
	for _, c := range changes {
		parts := strings.Split(c, ":")
		ev.Changes = append(ev.Changes, loop.FieldChange{Field: parts[0], From: parts[1], To: parts[2]})
	}
	return ev
}

// runOf wraps a trace (a terminal is appended unless the trace has one)
// and a final history in a Run under policy p.
func runOf(p loop.Policy, initial, final []loop.Message, events ...loop.Event) Run {
	trace := loop.Trace(events)
	res := &loop.Result{Trace: trace, State: loop.State{Messages: final, TurnCount: 1}}
	if trace.Terminal() == "" {
		res.Trace = append(res.Trace, loop.TerminalEvent{Terminal: loop.Completed, Turn: 1})
	}
	res.Terminal = res.Trace.Terminal()
	for _, e := range res.Trace {
		if _, ok := e.(loop.IterationStart); ok {
			res.Stats.Iterations++
		}
	}
	return Run{Policy: p, Initial: initial, Result: res}
}

func iter(n int) loop.IterationStart { return loop.IterationStart{Iteration: n, Turn: 1} }

// expect checks that invariant name reports exactly the listed event
// indices (-1 for history-level violations).
func expect(t *testing.T, name string, r Run, events ...int) {
	t.Helper()
	vs, err := CheckOne(name, r)
	require.NoError(t, err)
	got := []int{}
	for _, v := range vs {
		got = append(got, v.Event)
		assert.Equal(t, name, v.Invariant, "violation %+v", v)
		assert.NotEmpty(t, v.Detail, "violation %+v", v)
	}
	if events == nil {
		events = []int{}
	}
	require.Equal(t, events, got, "%s: the events of the violations %v", name, vs)
}

func TestTermination(t *testing.T) {
	p := loop.Seed()
	halted := runOf(p, nil, nil, iter(1), loop.TerminalEvent{Terminal: loop.Completed})
	halted.Result.Trace = halted.Result.Trace[:1]
	halted.Result.Halted, halted.Result.Terminal = true, ""
	expect(t, "termination", halted, -1)

	two := runOf(p, nil, nil, iter(1), loop.TerminalEvent{Terminal: loop.Completed}, loop.TerminalEvent{Terminal: loop.Completed})
	expect(t, "termination", two, 1, 2)

	mismatch := runOf(p, nil, nil, iter(1))
	mismatch.Result.Terminal = loop.MaxTurns
	expect(t, "termination", mismatch, 1)

	over := runOf(p, nil, nil, iter(1), tr(loop.NextTurn), iter(2), tr(loop.NextTurn), iter(3), tr(loop.NextTurn), iter(4))
	over.ScriptSteps = 2
	expect(t, "termination", over, -1)
	over.ScriptSteps = 3
	expect(t, "termination", over)
}

func TestIterationBound(t *testing.T) {
	p := loop.ClaudeCode()
	_, ok := IterationBound(p, 0)
	require.False(t, ok, "claude-code without max turns has a policy bound")
	p.MaxTurns = 2
	// B=8 blocks, R=3 recoveries per stretch, C=2, M=2, E=1:
	// Y = 8 + 9*3 + 2 + 2 + 1 = 40; no escalation, no collapse: 41 a turn
	b, ok := IterationBound(p, 0)
	require.True(t, ok)
	require.Equal(t, 82, b)
	b, _ = IterationBound(p, 5)
	require.Equal(t, 6, b, "a five-step script bounds a run to 6 iterations")
	s := loop.Seed()
	s.MaxTurns, s.StopHookBlockCap, s.TokenBudget = 1, 1, false
	_, ok = IterationBound(s, 0)
	require.False(t, ok, "seed with collapse and repeatable escalation has a policy bound")
}

func TestOneReactiveCompact(t *testing.T) {
	seed, cc := loop.Seed(), loop.ClaudeCode()
	twice := []loop.Event{iter(1), tr(loop.ReactiveCompactRetry), iter(2), tr(loop.ReactiveCompactRetry)}
	expect(t, "one_reactive_compact", runOf(seed, nil, nil, twice...), 3)
	expect(t, "one_reactive_compact", runOf(cc, nil, nil, twice...)) // two in a row allowed
	hookBetween := []loop.Event{tr(loop.ReactiveCompactRetry), tr(loop.StopHookBlocking), tr(loop.ReactiveCompactRetry)}
	expect(t, "one_reactive_compact", runOf(seed, nil, nil, hookBetween...), 2)
	turnBetween := []loop.Event{tr(loop.ReactiveCompactRetry), tr(loop.NextTurn), tr(loop.ReactiveCompactRetry)}
	expect(t, "one_reactive_compact", runOf(seed, nil, nil, turnBetween...))
}

// The state records carry hasAttemptedReactiveCompact: the invariant
// reads the flag itself, so a loop that forgets to set (or reset) it is
// caught even while its count keeps the behaviour right.
func TestOneReactiveCompactReadsTheFlag(t *testing.T) {
	seed, cc := loop.Seed(), loop.ClaudeCode()
	rec := func(flag bool) loop.StateRecord {
		return loop.StateRecord{TurnCount: 1, HasAttemptedReactiveCompact: flag}
	}
	ok := []loop.Event{iter(1), tr(loop.ReactiveCompactRetry), rec(true), iter(2), tr(loop.StopHookBlocking), rec(true),
		iter(3), tr(loop.NextTurn), rec(false)}
	expect(t, "one_reactive_compact", runOf(seed, nil, nil, ok...))
	notSet := []loop.Event{iter(1), tr(loop.ReactiveCompactRetry), rec(false)}
	expect(t, "one_reactive_compact", runOf(seed, nil, nil, notSet...), 2)
	expect(t, "one_reactive_compact", runOf(cc, nil, nil, notSet...), 2)
	notReset := []loop.Event{iter(1), tr(loop.ReactiveCompactRetry), rec(true), iter(2), tr(loop.NextTurn), rec(true)}
	expect(t, "one_reactive_compact", runOf(seed, nil, nil, notReset...), 5)
	// a compaction while the flag is set: one too many for the seed, the
	// second of two for claude-code
	again := []loop.Event{iter(1), tr(loop.ReactiveCompactRetry), rec(true), iter(2), tr(loop.ReactiveCompactRetry), rec(true)}
	expect(t, "one_reactive_compact", runOf(seed, nil, nil, again...), 4, 4)
	expect(t, "one_reactive_compact", runOf(cc, nil, nil, again...))
}

func TestThreeRecoveries(t *testing.T) {
	p := loop.Seed()
	four := []loop.Event{tr(loop.MaxOutputTokensRecovery), tr(loop.MaxOutputTokensRecovery), tr(loop.MaxOutputTokensRecovery), tr(loop.MaxOutputTokensRecovery)}
	expect(t, "three_recoveries", runOf(p, nil, nil, four...), 3)
	reset := append(append([]loop.Event{}, four[:3]...), tr(loop.StopHookBlocking), four[0], four[1], four[2])
	expect(t, "three_recoveries", runOf(p, nil, nil, reset...))
	p.MaxOutputRecoveries = 1
	expect(t, "three_recoveries", runOf(p, nil, nil, four[:2]...), 1)
	// the detail counts from the start of the run, or from the last reset
	vs, err := CheckOne("three_recoveries", runOf(p, nil, nil, four[:2]...))
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.Equal(t, "max_output_tokens_recovery #2 since the start of the run; bound max_output_recoveries = 1", vs[0].Detail)
	vs, err = CheckOne("three_recoveries", runOf(p, nil, nil, tr(loop.NextTurn), tr(loop.MaxOutputTokensRecovery), tr(loop.MaxOutputTokensRecovery)))
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.Equal(t, "max_output_tokens_recovery #2 since the reset at event 0; bound max_output_recoveries = 1", vs[0].Detail)
}

func TestEscalateOnce(t *testing.T) {
	p := loop.Seed()
	again := []loop.Event{tr(loop.MaxOutputTokensEscalate), tr(loop.MaxOutputTokensRecovery), tr(loop.MaxOutputTokensEscalate)}
	expect(t, "escalate_once", runOf(p, nil, nil, again...), 2)
	newTurn := []loop.Event{tr(loop.MaxOutputTokensEscalate), tr(loop.NextTurn), tr(loop.MaxOutputTokensEscalate)}
	expect(t, "escalate_once", runOf(p, nil, nil, newTurn...))
}

func TestEscalatedCap(t *testing.T) {
	r := runOf(loop.Seed(), nil, nil,
		loop.RequestEvent{Model: "a", MaxTokens: 64_000}, loop.RequestEvent{Model: "a", MaxTokens: 64_001},
		loop.RequestEvent{Model: "b", MaxTokens: 64_001})
	r.Models = []loop.ModelInfo{{Name: "a", MaxOutputTokens: 64_000}, {Name: "b", MaxOutputTokens: 128_000}}
	expect(t, "escalated_cap", r, 1)
}

func TestNoDoubleDrain(t *testing.T) {
	p := loop.Seed()
	expect(t, "no_double_drain", runOf(p, nil, nil, tr(loop.CollapseDrainRetry), tr(loop.CollapseDrainRetry)), 1)
	expect(t, "no_double_drain", runOf(p, nil, nil, tr(loop.CollapseDrainRetry), tr(loop.ReactiveCompactRetry), tr(loop.CollapseDrainRetry)))
}

func TestTurns(t *testing.T) {
	p := loop.Seed()
	ok := runOf(p, nil, nil, iter(1), tr(loop.NextTurn, "turn_count:1:2"),
		loop.IterationStart{Iteration: 2, Turn: 2}, loop.TerminalEvent{Terminal: loop.Completed, Turn: 2})
	ok.Result.State.TurnCount = 2
	expect(t, "turns", ok)

	noChange := runOf(p, nil, nil, tr(loop.NextTurn))
	expect(t, "turns", noChange, 0)
	wrongTurn := runOf(p, nil, nil, tr(loop.ReactiveCompactRetry, "turn_count:1:2"))
	wrongTurn.Result.State.TurnCount = 2
	expect(t, "turns", wrongTurn, 0, 1) // and the terminal then reports the wrong turn
	byTwo := runOf(p, nil, nil, tr(loop.NextTurn, "turn_count:1:3"))
	byTwo.Result.State.TurnCount = 3
	expect(t, "turns", byTwo, 0, 1)

	p.MaxTurns = 1
	over := runOf(p, nil, nil, tr(loop.NextTurn, "turn_count:1:2"), loop.TerminalEvent{Terminal: loop.Completed, Turn: 2})
	over.Result.State.TurnCount = 2
	expect(t, "turns", over, 0)

	p.MaxTurns, p.StopHookBlocksCountAsTurns = 0, true
	block := runOf(p, nil, nil, tr(loop.StopHookBlocking, "turn_count:1:2"), loop.TerminalEvent{Terminal: loop.Completed, Turn: 2})
	block.Result.State.TurnCount = 2
	expect(t, "turns", block)
	p.StopHookBlocksCountAsTurns = false
	block.Policy = p
	expect(t, "turns", block, 0)
}

// msg is a message with blocks.
func msg(id string, role loop.Role, blocks ...loop.Block) loop.Message {
	return loop.Message{ID: id, Role: role, Blocks: blocks}
}

func use(id string) loop.Block { return loop.Block{Type: loop.BlockToolUse, ID: id, Name: "Read"} }
func result(id string) loop.Block {
	return loop.Block{Type: loop.BlockToolResult, ToolUseID: id}
}

func TestPairedTools(t *testing.T) {
	p := loop.Seed()
	paired := []loop.Message{msg("a", loop.RoleAssistant, use("t1"), use("t2")), msg("b", loop.RoleUser, result("t1"), result("t2"))}
	expect(t, "paired_tools", runOf(p, nil, paired))
	missing := []loop.Message{msg("a", loop.RoleAssistant, use("t1"), use("t2")), msg("b", loop.RoleUser, result("t1"))}
	expect(t, "paired_tools", runOf(p, nil, missing), -1)
	twice := []loop.Message{msg("a", loop.RoleAssistant, use("t1")), msg("b", loop.RoleUser, result("t1")), msg("c", loop.RoleUser, result("t1"))}
	expect(t, "paired_tools", runOf(p, nil, twice), -1)
	early := []loop.Message{msg("b", loop.RoleUser, result("t1")), msg("a", loop.RoleAssistant, use("t1"))}
	expect(t, "paired_tools", runOf(p, nil, early), -1)
}

func TestNoHooksAfterErrors(t *testing.T) {
	p := loop.Seed()
	hook := loop.StopHook{Outcome: loop.HookPass}
	main := loop.RequestEvent{Purpose: loop.PurposeMain}
	failed := loop.RequestFailed{Purpose: loop.PurposeMain, Kind: loop.KindOverloaded}
	expect(t, "no_hooks_after_errors", runOf(p, nil, nil, iter(1), main, failed, loop.Retry{}, main, loop.ResponseEvent{}, hook))
	expect(t, "no_hooks_after_errors", runOf(p, nil, nil, iter(1), main, failed, hook), 3)
	expect(t, "no_hooks_after_errors", runOf(p, nil, nil, iter(1), main, loop.Withheld{Kind: loop.WithheldMedia}, hook), 3)
	stopFailure := loop.StopFailureHook{Error: "500 server_error", Ran: true}
	expect(t, "no_hooks_after_errors", runOf(p, nil, nil, iter(1), main, loop.ResponseEvent{}, loop.ErrorEmitted{}, hook, stopFailure), 4)
	// docs/spec.md §2.5.5: completed after an API error only through the
	// stop-failure hooks, and they run only after an emitted error
	expect(t, "no_hooks_after_errors", runOf(p, nil, nil, iter(1), main, failed, loop.ErrorEmitted{}, stopFailure))
	expect(t, "no_hooks_after_errors", runOf(p, nil, nil, iter(1), main, failed, loop.ErrorEmitted{}), 4)
	expect(t, "no_hooks_after_errors", runOf(p, nil, nil, iter(1), main, loop.ResponseEvent{}, stopFailure), 3)
	// ending api_error after the error needs no stop-failure hooks
	expect(t, "no_hooks_after_errors", runOf(p, nil, nil, iter(1), main, failed, loop.ErrorEmitted{},
		loop.TerminalEvent{Terminal: loop.APIError, Turn: 1}))
	// a truncation is withheld too, but the hooks may run after it
	expect(t, "no_hooks_after_errors", runOf(p, nil, nil, iter(1), main, loop.Withheld{Kind: loop.WithheldMaxOutput}, hook))
	// a failure in an earlier iteration does not count
	expect(t, "no_hooks_after_errors", runOf(p, nil, nil, iter(1), main, failed, tr(loop.NextTurn), iter(2), main, loop.ResponseEvent{}, hook))
}

func TestNothingLost(t *testing.T) {
	p := loop.Seed()
	initial := []loop.Message{msg("u1", loop.RoleUser), msg("u2", loop.RoleUser)}
	// u1 gone without a record
	expect(t, "nothing_lost", runOf(p, initial, []loop.Message{initial[1]}), -1)
	// u1 snipped
	snipped := runOf(p, initial, []loop.Message{initial[1]}, loop.Stage{Stage: loop.StageSnip, Removed: []string{"u1"}})
	expect(t, "nothing_lost", snipped)
	// m1 and m3 are in the history: m2 was made and lost
	lost := []loop.Message{initial[0], initial[1], msg("m1", loop.RoleAssistant), msg("m3", loop.RoleAssistant)}
	expect(t, "nothing_lost", runOf(p, initial, lost), -1)
	// unless an escalation dropped it, naming it
	expect(t, "nothing_lost", runOf(p, initial, lost, loop.TransitionEvent{Transition: loop.MaxOutputTokensEscalate, Dropped: "m2"}))
	// an escalation that names another reply does not excuse it
	expect(t, "nothing_lost", runOf(p, initial, lost, loop.TransitionEvent{Transition: loop.MaxOutputTokensEscalate, Dropped: "m1"}), -1)
	// nor does a fallback that dropped nothing
	expect(t, "nothing_lost", runOf(p, initial, lost, loop.Fallback{From: "a", To: "b"}), -1)
	expect(t, "nothing_lost", runOf(p, initial, lost, loop.Fallback{From: "a", To: "b", Dropped: "m2"}))
	// or a compaction removed it
	expect(t, "nothing_lost", runOf(p, initial, lost, loop.Compaction{OK: true, Removed: []string{"m2"}}))
	// unnamed starting messages are named m1, m2, ... by the loop
	unnamed := []loop.Message{{Role: loop.RoleUser}, {Role: loop.RoleUser}}
	expect(t, "nothing_lost", runOf(p, unnamed, []loop.Message{msg("m1", loop.RoleUser), msg("m2", loop.RoleUser)}))
	expect(t, "nothing_lost", runOf(p, unnamed, []loop.Message{msg("m2", loop.RoleUser)}), -1)
	// m+2 reads as the number 2, but is not the loop's m2: m2 is lost
	plus := []loop.Message{initial[0], initial[1], msg("m1", loop.RoleAssistant), msg("m+2", loop.RoleAssistant)}
	expect(t, "nothing_lost", runOf(p, initial, plus), -1)
	expect(t, "nothing_lost", runOf(p, initial, plus, loop.Compaction{OK: true, Removed: []string{"m2"}}))
	// a starting message named like a loop-made one is the caller's
	taken := []loop.Message{msg("m2", loop.RoleUser)}
	expect(t, "nothing_lost", runOf(p, taken, []loop.Message{taken[0], msg("m1", loop.RoleAssistant), msg("m3", loop.RoleAssistant)}))
	// IDs not spelled as the loop spells its own are not loop-made: no
	// m1 to m4 is missing for m05, and m, m-1 and a one-letter starting
	// ID are read without trouble
	odd := []loop.Message{msg("a", loop.RoleUser)}
	expect(t, "nothing_lost", runOf(p, odd, []loop.Message{odd[0], msg("m05", loop.RoleAssistant), msg("m", loop.RoleAssistant), msg("m-1", loop.RoleAssistant)}))
	// an unnamed starting message takes the first free loop name: m2
	// here, since m1 is taken
	mixed := []loop.Message{{Role: loop.RoleUser}, msg("m1", loop.RoleUser)}
	expect(t, "nothing_lost", runOf(p, mixed, []loop.Message{msg("m1", loop.RoleUser), msg("m2", loop.RoleUser)}))
	expect(t, "nothing_lost", runOf(p, mixed, []loop.Message{msg("m1", loop.RoleUser)}), -1)
	// an ID far above any the loop makes: every one below it is lost but
	// those accounted for, however high
	far := runOf(p, initial, []loop.Message{initial[0], initial[1], msg("m70000", loop.RoleAssistant)},
		loop.TransitionEvent{Transition: loop.EmptyReplyRetry, Dropped: "m69999"}, loop.Fallback{Dropped: "m3"})
	vs, err := CheckOne("nothing_lost", far)
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.True(t, strings.HasPrefix(vs[0].Detail, "69997 loop-made messages left the history unrecorded"), vs[0].Detail)
	assert.True(t, strings.HasSuffix(vs[0].Detail, ", m69998"), "m69999 was dropped, m70000 is present")
	assert.Contains(t, vs[0].Detail, ": m1, m2, m4, m5,", "m3 was dropped")
}

func TestCheckOrderAndNames(t *testing.T) {
	r := runOf(loop.Seed(), nil, []loop.Message{msg("a", loop.RoleAssistant, use("t1"))},
		tr(loop.CollapseDrainRetry), tr(loop.CollapseDrainRetry), tr(loop.NextTurn))
	vs := Check(r)
	order := map[string]int{}
	for i, n := range InvariantNames() {
		order[n] = i
	}
	for i := 1; i < len(vs); i++ {
		assert.LessOrEqual(t, order[vs[i-1].Invariant], order[vs[i].Invariant], "violations in InvariantNames order: %v", vs)
	}
	require.GreaterOrEqual(t, len(vs), 3, "want no_double_drain, turns and paired_tools violations, got %v", vs)
	_, err := CheckOne("no_such_invariant", r)
	assert.Error(t, err, "CheckOne accepts no unknown invariant")
	empty := Check(Run{})
	require.Len(t, empty, 1, "a run without a result")
	assert.Equal(t, "termination", empty[0].Invariant)
	want := "no_double_drain at event 1: collapse_drain_retry directly after another collapse_drain_retry"
	for _, v := range vs {
		if v.Invariant == "no_double_drain" {
			assert.Equal(t, want, v.Error())
		}
	}
}
