package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/properties/wirecheck"
	"github.com/loopsim/loopsim/scenarios"
)

var (
	wireAgentOnce sync.Once
	wireAgentBin  string
	wireAgentErr  error
)

// wireAgent builds testdata/wireagent (package sampleagent's loop as a
// process) once.
func wireAgent(t *testing.T) string {
	t.Helper()
	wireAgentOnce.Do(func() {
		dir, err := os.MkdirTemp("", "loopsim-wireagent-")
		if err != nil {
			wireAgentErr = err
			return
		}
		wireAgentBin = filepath.Join(dir, "wireagent")
		if out, err := exec.Command("go", "build", "-o", wireAgentBin, "./testdata/wireagent").CombinedOutput(); err != nil {
			wireAgentErr = err
			t.Log(string(out))
		}
	})
	require.NoError(t, wireAgentErr)
	return wireAgentBin
}

// readCheckReport reads check-agent.json from dir.
func readCheckReport(t *testing.T, dir string) wirecheck.Result {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, wirecheck.ReportFile))
	require.NoError(t, err)
	var res wirecheck.Result
	require.NoError(t, json.Unmarshal(data, &res))
	return res
}

func TestCheckAgentGoodAgentPasses(t *testing.T) {
	bin := wireAgent(t)
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "check-agent", "--cmd", bin, "-api", "messages,chat", "-n", "8", "-seed", "11", "-out", dir, "-timeout", "20s")
	assert.Equal(t, exitPass, code, "%s\n%s", out, errOut)
	assert.Contains(t, errOut, "seed 11 (-seed 11 replays these schedules)")
	assert.Contains(t, errOut, "8/8 cases, 0 violations")
	assert.Contains(t, out, "no violation found")
	res := readCheckReport(t, dir)
	assert.Equal(t, 8, res.Searched)
	assert.Len(t, res.Cases, 8)
	assert.Empty(t, res.Findings)
	for _, c := range res.Cases {
		assert.NotEmpty(t, c.Requests, "every case called the server")
		assert.Empty(t, c.Broken)
	}
}

func TestCheckAgentBrokenAgentShrunk(t *testing.T) {
	bin := wireAgent(t)
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "check-agent", "--cmd", bin+" -breaks retry-after-honoured", "-n", "60", "-seed", "3",
		"-out", dir, "-timeout", "20s", "-retry-after", "1s") // the broken agent does not wait: 1s keeps its retry far from the slack under load
	require.Equal(t, simExitViolations, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "VIOLATION: retry-after-honoured")
	assert.Contains(t, out, "replayed: broke the same again")
	res := readCheckReport(t, dir)
	require.Len(t, res.Findings, 1)
	f := res.Findings[0]
	assert.False(t, f.Flaky)
	assert.True(t, f.Reproduced)
	assert.LessOrEqual(t, f.Minimal.Faults, 3, "%+v", f.Minimal.Schedule)
	text, err := os.ReadFile(filepath.Join(dir, f.File))
	require.NoError(t, err, "the minimal scenario is written")
	s, err := scenarios.Parse(f.File, text)
	require.NoError(t, err, "%s", text)
	assert.Equal(t, f.Minimal.Schedule, s.Answers.Main)
	replay, err := os.ReadFile(filepath.Join(dir, "wirecheck-cmd.replay"))
	require.NoError(t, err)
	assert.Contains(t, string(replay), fmt.Sprintf("-seed %d -n 1", f.Seed))
	assert.NotContains(t, string(replay), "-n 60")
	page, err := os.ReadFile(filepath.Join(dir, reportHTML))
	require.NoError(t, err, "the HTML report is written beside check-agent.json")
	assert.Contains(t, string(page), "Violation: retry-after-honoured")
	assert.Contains(t, errOut, ", 1 violation, 0 flaky, 0 errors, ", "the progress counts the violation it shrinks")
	assert.NotContains(t, errOut, "0 violations, 0 flaky, 0 errors, 0s elapsed, shrinking")
	assert.Equal(t, []string{"retry-after-honoured"}, s.Recheck.Invariants)

	// the printed replay plays the minimal schedule and re-checks what broke
	args := replayArgs(t, f.Replay[0])
	require.Equal(t, "agent", args[0], f.Replay[0])
	code, out, errOut = runCLI(t, args...)
	assert.Equal(t, simExitViolations, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "REPRODUCED     wirecheck-cmd")
	assert.Contains(t, out, "compared: recheck.invariants (retry-after-honoured) under recheck.limits\n")
	assert.Contains(t, out, "broke again:\n                 retry-after-honoured: request ")
	// the same file against the agent without its break: it holds
	code, out, errOut = runCLI(t, "agent", "--cmd", bin, filepath.Join(dir, f.File))
	assert.Equal(t, exitPass, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "NOT REPRODUCED wirecheck-cmd")
	assert.Contains(t, out, "held: retry-after-honoured\n")
	assert.Contains(t, out, "0 passed, 0 failed, 1 not reproduced\n")
}

// replayArgs are the arguments of a printed replay command after
// "simulate", its comment dropped and its words unquoted as sh does.
func replayArgs(t *testing.T, line string) []string {
	t.Helper()
	line, _, _ = strings.Cut(line, "   # ")
	var args []string
	var word strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				args = append(args, word.String())
				word.Reset()
			}
			inWord = false
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		args = append(args, word.String())
	}
	require.Equal(t, "simulate", args[0], line)
	return args[1:]
}

func TestCheckAgentBadInput(t *testing.T) {
	bin := wireAgent(t)
	for _, args := range [][]string{
		{"--preset", "no-such-agent"},
		{"--cmd", "/no/such/agent"},
		{"--preset", "claude-code", "--cmd", "/no/such/claude"},
		{},
		{"--cmd", bin, "-n", "-1"},
		{"--cmd", bin, "-api", "soap"},
		{"--cmd", bin, "-skip", "no-such-invariant"},
		{"--cmd", bin, "-retry-after", "soon"},
		{"--cmd", bin, "-no-such-flag"},
		{"--cmd", bin, "stray"},
	} {
		code, _, errOut := runCLI(t, append([]string{"check-agent", "-out", t.TempDir()}, args...)...)
		assert.Equal(t, exitBadInput, code, "%v: %s", args, errOut)
	}
	// an agent that never calls the server cannot be judged
	code, _, errOut := runCLI(t, "check-agent", "--cmd", "true", "-n", "3", "-out", t.TempDir())
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "the first case could not be judged")
}

// Ctrl-C stops the check; the report holds the cases that finished.
func TestCheckAgentInterruptedKeepsFinishedCases(t *testing.T) {
	bin := wireAgent(t)
	dir := t.TempDir()
	sigs := make(chan os.Signal, 1)
	old, oldHook := serveSignals, checkHookProgress
	serveSignals = func() (<-chan os.Signal, func()) { return sigs, func() {} }
	checkHookProgress = func(p wirecheck.Progress) {
		if p.Done == 3 {
			sigs <- os.Interrupt
		}
	}
	defer func() { serveSignals, checkHookProgress = old, oldHook }()
	code, out, errOut := runCLI(t, "check-agent", "--cmd", bin, "-n", "500", "-seed", "5", "-out", dir, "-timeout", "20s")
	assert.Equal(t, checkExitInterrupted, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "interrupted")
	res := readCheckReport(t, dir)
	assert.True(t, res.Interrupted)
	assert.GreaterOrEqual(t, res.Searched, 3)
	assert.Less(t, res.Searched, 500)
	assert.Len(t, res.Cases, res.Searched)
}

func TestWithoutFlags(t *testing.T) {
	assert.Equal(t, []string{"--cmd", "x", "-api", "chat"},
		withoutFlags([]string{"--cmd", "x", "-seed", "4", "-n=9", "-api", "chat", "--out", "d", "-time", "1m"}, "seed", "n", "time", "out"))
}

// A differential run: the same schedules against two versions of one
// agent (one retries three times, the other once) find a schedule where
// their exits differ, shrunk; the agent against itself under another
// setting differs in nothing.
func TestCheckAgentDifferential(t *testing.T) {
	bin := wireAgent(t)
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "check-agent", "--cmd", bin, "-against-cmd", bin+" -max-retries 1", "-tolerance", "100",
		"-n", "60", "-seed", "9", "-out", dir, "-timeout", "20s", "-retry-after", "0", "-api", "messages")
	require.Equal(t, simExitViolations, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "DIFFERENCE: exit")
	res := readCheckReport(t, dir)
	require.NotEmpty(t, res.Findings)
	f := res.Findings[len(res.Findings)-1]
	assert.False(t, f.Flaky)
	require.NotNil(t, f.Minimal.Against)
	assert.NotEqual(t, f.Minimal.Exit, f.Minimal.Against.Exit)
	assert.LessOrEqual(t, f.Minimal.Faults, 1, "%+v", f.Minimal.Schedule)
	assert.Equal(t, "cmd@wireagent", res.Against)

	code, out, errOut = runCLI(t, "check-agent", "--cmd", bin, "-against-env", "LOOPSIM_UNUSED=1",
		"-n", "4", "-seed", "9", "-out", t.TempDir(), "-timeout", "20s", "-retry-after", "0")
	assert.Equal(t, exitPass, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "no difference found between cmd and cmd+LOOPSIM_UNUSED=1")
}
