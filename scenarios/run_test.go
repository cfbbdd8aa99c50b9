package scenarios

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scenario parses a scenario written inline for a test.
func scenario(t *testing.T, src string) *Scenario {
	t.Helper()
	s, err := Parse(t.Name()+".yaml", []byte(src))
	require.NoError(t, err)
	return s
}

func run(t *testing.T, s *Scenario) *Outcome {
	t.Helper()
	out, err := Run(context.Background(), s)
	require.NoError(t, err)
	return out
}

const oneToolTurn = `name: one-tool-turn
description: a tool turn, then an answer
profile: seed
conversation: [{role: user, text: hi}]
script:
  - {tool_uses: [{name: Read}], output_tokens: 10}
  - {text: done, output_tokens: 5}
`

func TestRunPasses(t *testing.T) {
	out := run(t, scenario(t, oneToolTurn+`expect:
  terminal: completed
  transitions: [next_turn]
  counters: {turns: 2, requests: 2}
`))
	require.True(t, out.Passed(), "did not pass:\n%s", out.Diff())
	assert.Empty(t, out.Diff(), "a passing run has a diff")
	assert.Empty(t, out.Violations, "violations")
}

// TestRunFailsWithADiff: every part of the expectation can fail, and the
// diff names what departed.
func TestRunFailsWithADiff(t *testing.T) {
	for _, c := range []struct {
		name, expect, inDiff string
	}{
		{"terminal", "{terminal: max_turns, transitions: [next_turn]}", "expect.terminal: want max_turns, got completed\n"},
		{"transitions", "{terminal: completed, transitions: [next_turn * 2]}",
			"expect.transitions:\n  want next_turn ×2\n  got  next_turn\n  from entry 2 of 1 (2 wanted): want next_turn, got (the end)\n"},
		{"missing transitions", "{terminal: completed, transitions: []}",
			"expect.transitions:\n  want (none)\n  got  next_turn\n  from entry 1 of 1 (0 wanted): want (the end), got next_turn\n"},
		{"counter", "{terminal: completed, transitions: [next_turn], counters: {requests: 3, turns: 2}}", "expect.counters.requests: want 3, got 2\n"},
		{"halted", "{halted: true, transitions: [next_turn], violated: [termination]}",
			"expect.terminal: want halted, got completed\nexpect.violated: want [termination], got []\n"},
		{"expected violation", "{terminal: completed, transitions: [next_turn], violated: [paired_tools]}", "expect.violated: want [paired_tools], got []\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := run(t, scenario(t, oneToolTurn+"expect: "+c.expect+"\n"))
			require.False(t, out.Passed(), "passed a wrong expectation")
			assert.Equal(t, c.inDiff, out.Diff(), "the diff shows what departed, and only that")
		})
	}
}

// TestRunDiffShowsRequestsAsStrips: a long request sequence that departs
// reads as two strips and where they part, not an entry a line.
func TestRunDiffShowsRequestsAsStrips(t *testing.T) {
	out := run(t, scenario(t, `name: strips
description: eleven 500s, expected six
profile: claude-code
conversation: [{role: user, text: hi}]
script: [{kind: server_error, repeat: 11}]
expect:
  terminal: api_error
  transitions: []
  wire: {requests: "M:500 * 6"}
`))
	assert.Equal(t, "expect.wire.requests:\n  want M:500 ×6\n  got  M:500 ×11\n  from entry 7 of 11 (6 wanted): want (the end), got M:500\n", out.Diff())
	assert.Equal(t, []string{"expect.terminal", "expect.transitions", "invariants", "expect.wire.requests", "the script used up"}, out.Compared())
}

func TestRunReportsAScriptRunOut(t *testing.T) {
	out := run(t, scenario(t, `name: short
description: the script ends before the run does
profile: seed
conversation: [{role: user, text: hi}]
script: [{tool_uses: [{name: Read}]}]
expect: {terminal: model_error, transitions: [next_turn]}
`))
	want := []string{"fakemodel: script exhausted: request 2 (main) arrived after all 1 steps were used"}
	if diff := cmp.Diff(want, out.Got.Harness); diff != "" {
		t.Errorf("harness faults (-want +got):\n%s", diff)
	}
	assert.False(t, out.Passed(), "a run that ran out of script passed")
}

func TestRunReportsAScriptNotUsedUp(t *testing.T) {
	out := run(t, scenario(t, `name: long
description: two steps, one request
profile: seed
conversation: [{role: user, text: hi}]
script: [{text: done}, {text: never asked}]
expect: {terminal: completed, transitions: []}
`))
	if assert.Len(t, out.Got.Harness, 1, "harness faults: want the script not used up") {
		assert.Contains(t, out.Got.Harness[0], "not used up", "harness faults: want the script not used up")
	}
	assert.False(t, out.Passed(), "a run that left script steps unplayed passed")
}

func TestRunExpectsAKnownFinding(t *testing.T) {
	src := `name: forever
description: a stop hook that always blocks, no cap
profile: seed
iteration_limit: 5
conversation: [{role: user, text: hi}]
script: [{text: done, repeat: forever}]
stop_hooks: [{block: again}]
expect:
  halted: true
  transitions: [stop_hook_blocking * 5]
  violated: [termination]
`
	out := run(t, scenario(t, src))
	require.True(t, out.Passed(), "did not pass:\n%s", out.Diff())
	assert.True(t, out.Result.Halted, "result halted")
	assert.Empty(t, out.Result.Terminal, "result terminal")
}

func TestRunFailsOnAnUnexpectedViolation(t *testing.T) {
	src := `name: escalates-twice
description: truncated, escalated, recovered, escalated again
profile: seed
conversation: [{role: user, text: hi}]
script: [{kind: truncated, repeat: 3}, {text: done}]
expect:
  terminal: completed
  transitions: [max_output_tokens_escalate, max_output_tokens_recovery, max_output_tokens_escalate]
`
	out := run(t, scenario(t, src))
	assert.False(t, out.Passed(), "an unexpected violation passed:\n%s", out.Diff())
	assert.Contains(t, out.Diff(), "escalate_once", "the diff names the unexpected violation")
	out = run(t, scenario(t, src+"  violated: [escalate_once]\n"))
	assert.True(t, out.Passed(), "the expected violation failed:\n%s", out.Diff())
}

// TestRunIsFreshEachTime: the fakes keep state, so two runs of one
// scenario must not share them.
func TestRunIsFreshEachTime(t *testing.T) {
	s := scenario(t, oneToolTurn+"expect: {terminal: completed, transitions: [next_turn]}\n")
	a, b := run(t, s), run(t, s)
	require.True(t, a.Passed() && b.Passed(), "runs did not pass:\n%s\n%s", a.Diff(), b.Diff())
	if diff := cmp.Diff(a.Result.Trace, b.Result.Trace); diff != "" {
		t.Errorf("two runs of one scenario gave different traces (-first +second):\n%s", diff)
	}
}

// TestRunRejectsAHistoryTheLoopRefuses: the loader refuses what it can
// see; what only the loop refuses (here, ids made repeated after loading)
// is an error of Run, not a verdict.
func TestRunRejectsAHistoryTheLoopRefuses(t *testing.T) {
	s := scenario(t, `name: dup
description: two messages with one id
profile: seed
conversation: [{role: user, text: hi, id: a}, {role: user, text: again, id: b}]
script: [{text: done}]
expect: {terminal: completed, transitions: []}
`)
	s.Conversation[1].ID = "a"
	_, err := Run(context.Background(), s)
	require.ErrorContains(t, err, `id "a" is also the id of message 0`, "want the loop's refusal of a repeated id")
}

func TestCountersAreDocumentedAndDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Counters {
		assert.False(t, seen[c.Name], "counter %q repeated", c.Name)
		assert.NotEmpty(t, c.Doc, "counter %q has no doc", c.Name)
		assert.NotNil(t, c.Of, "counter %q has no Of", c.Name)
		seen[c.Name] = true
		_ = c.Of(&loop.Result{})
	}
}
