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
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
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
	require.Equal(t, exitPass, code, "exit code; stderr %q", errOut)
	require.Empty(t, errOut, "stderr")
	for _, want := range []string{"PASS  seed-next-turn", "completed", "next_turn", "1 passed, 0 failed, 0 skipped\n"} {
		assert.Contains(t, out, want, "output")
	}
	assert.NotContains(t, out, "iteration 1", "trace printed without -v")
}

func TestRunVerbosePrintsTheTrace(t *testing.T) {
	code, out, _ := runCLI(t, "run", nextTurn, "-v")
	require.Equal(t, exitPass, code, "exit code; output:\n%s", out)
	require.Contains(t, out, "iteration 1 (turn 1, 1 messages)")
	require.Contains(t, out, "=> terminal completed")
	require.Contains(t, out, "      compared: expect.terminal, expect.transitions, expect.counters.turns, expect.counters.requests, expect.counters.tool_results, invariants, the script used up\n")
}

func TestRunFailingExpectation(t *testing.T) {
	code, out, _ := runCLI(t, "run", writeScenario(t, "wrong-terminal", wrongTerminal))
	assert.Equal(t, exitFail, code, "exit code")
	for _, want := range []string{"FAIL  wrong-terminal", "      departed:\n        expect.terminal: want max_turns, got completed\n", "0 passed, 1 failed"} {
		assert.Contains(t, out, want, "output")
	}
}

func TestRunBadFile(t *testing.T) {
	bad := writeScenario(t, "bad", "name: bad\nprofile: seed\nscript: [{kind: timeout}]\n")
	code, out, errOut := runCLI(t, "run", bad, nextTurn)
	assert.Equal(t, exitBadInput, code, "exit code")
	assert.Contains(t, errOut, bad+`:3:17: script[0].kind: unknown kind "timeout"`, "stderr lacks the loader's positioned message")
	assert.Contains(t, out, "PASS  seed-next-turn", "the good file did not run")
}

func TestRunJSON(t *testing.T) {
	code, out, _ := runCLI(t, "run", "--json", "-v", nextTurn, writeScenario(t, "wrong-terminal", wrongTerminal))
	assert.Equal(t, exitFail, code, "exit code")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, "want one JSON object per scenario:\n%s", out)
	var got []verdict
	for _, l := range lines {
		var v verdict
		require.NoError(t, json.Unmarshal([]byte(l), &v), "line is not JSON:\n%s", l)
		got = append(got, v)
	}
	assert.Equal(t, "seed-next-turn", got[0].Name, "first verdict %+v, want seed-next-turn passing with its trace", got[0])
	assert.Equal(t, "pass", got[0].Verdict, "first verdict %+v, want seed-next-turn passing with its trace", got[0])
	assert.NotEmpty(t, got[0].Trace, "first verdict %+v, want seed-next-turn passing with its trace", got[0])
	assert.Equal(t, "fail", got[1].Verdict, "second verdict %+v, want a failure with its diff", got[1])
	assert.Contains(t, got[1].Diff, "max_turns", "second verdict %+v, want a failure with its diff", got[1])
}

func TestRunSkipped(t *testing.T) {
	path := writeScenario(t, "known-bug", strings.Replace(wrongTerminal, "profile: seed", "skip: a known loop bug\nprofile: seed", 1))
	code, out, _ := runCLI(t, "run", path)
	assert.Equal(t, exitPass, code, "exit code; output:\n%s", out)
	assert.Contains(t, out, "SKIP  wrong-terminal")
	assert.Contains(t, out, "a known loop bug")
	code, out, _ = runCLI(t, "run", "-skipped", path)
	assert.Equal(t, exitFail, code, "with -skipped: exit code; output:\n%s", out)
	assert.Contains(t, out, "FAIL  wrong-terminal", "with -skipped")
}

func TestRunLibraryByDefault(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "-run", "^seed-next-turn$|^cc-max-turns-1$")
	require.Equal(t, exitPass, code, "exit code; stderr %q", errOut)
	require.Empty(t, errOut, "stderr")
	assert.Contains(t, out, "cc-max-turns-1")
	assert.Contains(t, out, "seed-next-turn")
	assert.Contains(t, out, "2 passed, 0 failed")
}

func TestRunWholeLibraryPasses(t *testing.T) {
	code, out, errOut := runCLI(t, "run")
	require.Equal(t, exitPass, code, "exit code; stderr %q, output:\n%s", errOut, out)
	require.Empty(t, errOut, "stderr")
	require.NotContains(t, out, "FAIL")
}

func TestRunUsageErrors(t *testing.T) {
	code, _, _ := runCLI(t, "run", "-h")
	assert.Equal(t, exitPass, code, "-h: exit code")
	code, _, _ = runCLI(t, "run", "-nope")
	assert.Equal(t, exitBadInput, code, "unknown flag: exit code")
	code, _, errOut := runCLI(t, "run", "-run", "(")
	assert.Equal(t, exitBadInput, code, "bad -run: exit code; stderr %q", errOut)
	assert.Contains(t, errOut, "-run", "bad -run")
}

func TestRunPatternMatchingNothingIsBadInput(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "-run", "no-such-scenario-name", nextTurn)
	require.Equal(t, exitBadInput, code, "stdout:\n%s", out)
	assert.Contains(t, errOut, `-run "no-such-scenario-name" matches none of the 1 scenarios`)
	assert.NotContains(t, out, "0 passed", "a run that judged nothing must not print a tally that reads as success")
}

func TestSummarize(t *testing.T) {
	got := summarize([]loop.Transition{"next_turn", "stop_hook_blocking", "stop_hook_blocking", "next_turn"})
	assert.Equal(t, "next_turn stop_hook_blocking*2 next_turn", got, "summarize")
}
