package scenarios

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loopsim/loopsim/loop"
)

// scenario parses a scenario written inline for a test.
func scenario(t *testing.T, src string) *Scenario {
	t.Helper()
	s, err := Parse(t.Name()+".yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func run(t *testing.T, s *Scenario) *Outcome {
	t.Helper()
	out, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
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
	if !out.Passed() {
		t.Fatalf("did not pass:\n%s", out.Diff())
	}
	if out.Diff() != "" {
		t.Errorf("a passing run has a diff:\n%s", out.Diff())
	}
	if len(out.Violations) != 0 {
		t.Errorf("violations: %v", out.Violations)
	}
}

// TestRunFailsWithADiff: every part of the expectation can fail, and the
// diff names what departed.
func TestRunFailsWithADiff(t *testing.T) {
	for _, c := range []struct {
		name, expect, inDiff string
	}{
		{"terminal", "{terminal: max_turns, transitions: [next_turn]}", `"max_turns"`},
		{"transitions", "{terminal: completed, transitions: [next_turn * 2]}", "Transitions"},
		{"missing transitions", "{terminal: completed, transitions: []}", `"next_turn"`},
		{"counter", "{terminal: completed, transitions: [next_turn], counters: {requests: 3}}", `"requests"`},
		{"halted", "{halted: true, transitions: [next_turn], violated: [termination]}", "Halted"},
		{"expected violation", "{terminal: completed, transitions: [next_turn], violated: [paired_tools]}", `"paired_tools"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := run(t, scenario(t, oneToolTurn+"expect: "+c.expect+"\n"))
			if out.Passed() {
				t.Fatal("passed a wrong expectation")
			}
			if d := out.Diff(); !strings.Contains(d, c.inDiff) {
				t.Errorf("diff does not show %s:\n%s", c.inDiff, d)
			}
		})
	}
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
	if out.Passed() {
		t.Error("a run that ran out of script passed")
	}
}

func TestRunReportsAScriptNotUsedUp(t *testing.T) {
	out := run(t, scenario(t, `name: long
description: two steps, one request
profile: seed
conversation: [{role: user, text: hi}]
script: [{text: done}, {text: never asked}]
expect: {terminal: completed, transitions: []}
`))
	if len(out.Got.Harness) != 1 || !strings.Contains(out.Got.Harness[0], "not used up") {
		t.Errorf("harness faults %q, want the script not used up", out.Got.Harness)
	}
	if out.Passed() {
		t.Error("a run that left script steps unplayed passed")
	}
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
	if !out.Passed() {
		t.Fatalf("did not pass:\n%s", out.Diff())
	}
	if !out.Result.Halted || out.Result.Terminal != "" {
		t.Errorf("result halted %t, terminal %q", out.Result.Halted, out.Result.Terminal)
	}
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
	if out.Passed() || !strings.Contains(out.Diff(), "escalate_once") {
		t.Errorf("an unexpected violation passed:\n%s", out.Diff())
	}
	out = run(t, scenario(t, src+"  violated: [escalate_once]\n"))
	if !out.Passed() {
		t.Errorf("the expected violation failed:\n%s", out.Diff())
	}
}

// TestRunIsFreshEachTime: the fakes keep state, so two runs of one
// scenario must not share them.
func TestRunIsFreshEachTime(t *testing.T) {
	s := scenario(t, oneToolTurn+"expect: {terminal: completed, transitions: [next_turn]}\n")
	a, b := run(t, s), run(t, s)
	if !a.Passed() || !b.Passed() {
		t.Fatalf("runs did not pass:\n%s\n%s", a.Diff(), b.Diff())
	}
	if !cmp.Equal(a.Result.Trace, b.Result.Trace) {
		t.Error("two runs of one scenario gave different traces")
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
	if _, err := Run(context.Background(), s); err == nil || !strings.Contains(err.Error(), `id "a" is also the id of message 0`) {
		t.Fatalf("got %v, want the loop's refusal of a repeated id", err)
	}
}

func TestCountersAreDocumentedAndDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Counters {
		if seen[c.Name] || c.Doc == "" || c.Of == nil {
			t.Errorf("counter %q repeated or incomplete", c.Name)
		}
		seen[c.Name] = true
		_ = c.Of(&loop.Result{})
	}
}
