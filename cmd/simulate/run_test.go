package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const nextTurn = "../../scenarios/library/seed-next-turn.yaml"

// runCLI runs the command line and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := dispatch(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// writeScenario writes a scenario file into a temporary directory.
func writeScenario(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const wrongTerminal = `name: wrong-terminal
description: expects max_turns of a run that completes
profile: seed
conversation: [{role: user, text: hi}]
script: [{text: done}]
expect: {terminal: max_turns, transitions: []}
`

func TestRunPassingFile(t *testing.T) {
	code, out, errOut := runCLI(t, "run", nextTurn)
	if code != exitPass || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"PASS  seed-next-turn", "completed", "next_turn", "1 passed, 0 failed, 0 skipped\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "iteration 1") {
		t.Errorf("trace printed without -v:\n%s", out)
	}
}

func TestRunVerbosePrintsTheTrace(t *testing.T) {
	code, out, _ := runCLI(t, "run", nextTurn, "-v")
	if code != exitPass || !strings.Contains(out, "iteration 1 (turn 1, 1 messages)") || !strings.Contains(out, "=> terminal completed") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
}

func TestRunFailingExpectation(t *testing.T) {
	code, out, _ := runCLI(t, "run", writeScenario(t, "wrong-terminal", wrongTerminal))
	if code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}
	for _, want := range []string{"FAIL  wrong-terminal", "diff (-want +got)", `"max_turns"`, `"completed"`, "0 passed, 1 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestRunBadFile(t *testing.T) {
	bad := writeScenario(t, "bad", "name: bad\nprofile: seed\nscript: [{kind: timeout}]\n")
	code, out, errOut := runCLI(t, "run", bad, nextTurn)
	if code != exitBadInput {
		t.Errorf("exit %d, want %d", code, exitBadInput)
	}
	if !strings.Contains(errOut, bad+`:3:17: script[0].kind: unknown kind "timeout"`) {
		t.Errorf("stderr lacks the loader's positioned message:\n%s", errOut)
	}
	if !strings.Contains(out, "PASS  seed-next-turn") {
		t.Errorf("the good file did not run:\n%s", out)
	}
}

func TestRunJSON(t *testing.T) {
	code, out, _ := runCLI(t, "run", "--json", "-v", nextTurn, writeScenario(t, "wrong-terminal", wrongTerminal))
	if code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want one JSON object per scenario:\n%s", len(lines), out)
	}
	var got []verdict
	for _, l := range lines {
		var v verdict
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line is not JSON: %v\n%s", err, l)
		}
		got = append(got, v)
	}
	if got[0].Name != "seed-next-turn" || got[0].Verdict != "pass" || len(got[0].Trace) == 0 {
		t.Errorf("first verdict %+v, want seed-next-turn passing with its trace", got[0])
	}
	if got[1].Verdict != "fail" || !strings.Contains(got[1].Diff, "max_turns") {
		t.Errorf("second verdict %+v, want a failure with its diff", got[1])
	}
}

func TestRunSkipped(t *testing.T) {
	path := writeScenario(t, "known-bug", strings.Replace(wrongTerminal, "profile: seed", "skip: a known loop bug\nprofile: seed", 1))
	code, out, _ := runCLI(t, "run", path)
	if code != exitPass || !strings.Contains(out, "SKIP  wrong-terminal") || !strings.Contains(out, "a known loop bug") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
	code, out, _ = runCLI(t, "run", "-skipped", path)
	if code != exitFail || !strings.Contains(out, "FAIL  wrong-terminal") {
		t.Errorf("with -skipped: exit %d, output:\n%s", code, out)
	}
}

func TestRunLibraryByDefault(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "-run", "^seed-next-turn$|^cc-max-turns-1$")
	if code != exitPass || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "cc-max-turns-1") || !strings.Contains(out, "seed-next-turn") || !strings.Contains(out, "2 passed, 0 failed") {
		t.Errorf("output:\n%s", out)
	}
}

func TestRunWholeLibraryPasses(t *testing.T) {
	code, out, errOut := runCLI(t, "run")
	if code != exitPass || errOut != "" || strings.Contains(out, "FAIL") {
		t.Fatalf("exit %d, stderr %q, output:\n%s", code, errOut, out)
	}
}

func TestRunUsageErrors(t *testing.T) {
	if code, _, _ := runCLI(t, "run", "-h"); code != exitPass {
		t.Errorf("-h: exit %d", code)
	}
	if code, _, _ := runCLI(t, "run", "-nope"); code != exitBadInput {
		t.Errorf("unknown flag: exit %d", code)
	}
	if code, _, errOut := runCLI(t, "run", "-run", "("); code != exitBadInput || !strings.Contains(errOut, "-run") {
		t.Errorf("bad -run: exit %d, stderr %q", code, errOut)
	}
}

func TestRunPatternMatchingNothingIsBadInput(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "-run", "no-such-scenario-name", nextTurn)
	require.Equal(t, exitBadInput, code, "stdout:\n%s", out)
	assert.Contains(t, errOut, `-run "no-such-scenario-name" matches none of the 1 scenarios`)
	assert.NotContains(t, out, "0 passed", "a run that judged nothing must not print a tally that reads as success")
}

func TestSummarize(t *testing.T) {
	got := summarize([]loop.Transition{"next_turn", "stop_hook_blocking", "stop_hook_blocking", "next_turn"})
	if want := "next_turn stop_hook_blocking*2 next_turn"; got != want {
		t.Errorf("summarize = %q, want %q", got, want)
	}
}
