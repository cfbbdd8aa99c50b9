package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopsim/loopsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// simulateArgs runs the simulate subcommand and returns its exit status
// and outputs.
func simulateArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := dispatch(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestSimulateIsTheDefault: with no subcommand the simulation runs and
// writes the summary, the plots and the metrics.
func TestSimulateIsTheDefault(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := simulateArgs(t, "-n", "25", "-seed", "2", "-transcripts", "", "-out", dir)
	require.Equal(t, simExitOK, code, "exit code; stderr: %s", stderr)
	assert.Contains(t, stdout, "claude-code")
	assert.Contains(t, stdout, "wrote "+filepath.Join(dir, "summary.md"))
	for _, f := range []string{"summary.md", "metrics.csv", "metrics.json", "context.png", "context.svg", "tokens.png",
		"tokens.svg", "terminals.png", "terminals.svg", "pareto.png", "pareto.svg"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if assert.NoError(t, err, f) {
			assert.NotZero(t, st.Size(), "%s is empty", f)
		}
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	for _, want := range []string{"## Outcomes", "## Safety: invariants", "## Liveness: termination", "![", "context.png"} {
		assert.True(t, bytes.Contains(summary, []byte(want)), "summary lacks %q", want)
	}
}

// TestSimulateDoesNotDependOnWorkers: one worker and three write the
// same summary.
func TestSimulateDoesNotDependOnWorkers(t *testing.T) {
	var summaries [][]byte
	for _, w := range []string{"1", "3"} {
		dir := t.TempDir()
		code, _, stderr := simulateArgs(t, "simulate", "-n", "30", "-transcripts", "", "-swarm", "-plots=false", "-workers", w, "-out", dir)
		require.Equal(t, simExitOK, code, "exit code; stderr: %s", stderr)
		b, err := os.ReadFile(filepath.Join(dir, "summary.md"))
		require.NoError(t, err)
		summaries = append(summaries, b)
	}
	assert.Equal(t, string(summaries[0]), string(summaries[1]), "the summary depends on the number of workers")
}

// A policy file of the user's own runs beside the built-in profiles under
// the name it gives, its differences in the summary's policies table;
// its name may not repeat a setting's.
func TestSimulateReadsAPolicyFile(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine.json")
	require.NoError(t, os.WriteFile(mine, []byte(`{"name": "my-agent", "profile": "claude-code", "policy": {"api_retries": 3}}`), 0o644))
	code, stdout, stderr := simulateArgs(t, "-n", "8", "-profile", "claude-code,"+mine, "-check=false", "-plots=false",
		"-calibrate", "0", "-out", dir)
	require.Equal(t, simExitOK, code, "exit code; stderr: %s", stderr)
	assert.Contains(t, stdout, "my-agent")
	summary, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "-profile claude-code,"+mine)
	assert.Contains(t, string(summary), "| field | claude-code | my-agent |")
	assert.Contains(t, string(summary), "| api_retries | 10 | 3 |")

	same := filepath.Join(dir, "same.json")
	require.NoError(t, os.WriteFile(same, []byte(`{"name": "codex", "profile": "claude-code"}`), 0o644))
	code, _, stderr = simulateArgs(t, "-n", "8", "-profile", "codex,"+same, "-plots=false", "-out", dir)
	assert.Equal(t, simExitBadInput, code)
	assert.Contains(t, stderr, "codex and "+same+` are both named "codex"`)
}

func TestSimulateSweep(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := simulateArgs(t, "-n", "8", "-profile", "claude-code", "-sweep", "auto_compact_buffer=5000,13000",
		"-sweep", "workload.faults.overloaded=0,0.05", "-check=false", "-plots=false", "-calibrate", "0", "-out", dir)
	require.Equal(t, simExitOK, code, "exit code; stderr: %s", stderr)
	csv, _ := os.ReadFile(filepath.Join(dir, "metrics.csv"))
	assert.Equal(t, 5, strings.Count(string(csv), "\n"), "metrics.csv lines, want a header and 4 settings")
}

func TestSimulateReplay(t *testing.T) {
	seed := fmt.Sprintf("%#x", sim.EpisodeSeed(1, 0))
	code, stdout, stderr := simulateArgs(t, "-profile", "seed", "-set", "workload.faults.abort=0", "-replay", seed)
	require.Equal(t, simExitOK, code, "exit code; stderr: %s", stderr)
	assert.Contains(t, stdout, "iteration 1 ")
	assert.Contains(t, stdout, "episode seed "+seed)
}

func TestSimulateRejectsBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "0"}, "-n 0"},
		{[]string{"-profile", "claude"}, `unknown profile "claude"`},
		{[]string{"-set", "max_turns"}, "want field=value"},
		{[]string{"-set", "max_turn=3"}, `no field "max_turn"`},
		{[]string{"-set", "workload.faults.abort=2"}, "not a probability"},
		{[]string{"-sweep", "max_turns=5:1:1"}, "positive step"},
		{[]string{"-sweep", "a=1", "-sweep", "b=1", "-sweep", "c=1"}, "at most two"},
		{[]string{"-prices", "input=free"}, "-prices"},
		{[]string{"-replay", "xyz", "-profile", "seed"}, "not a seed"},
		{[]string{"-replay", "1", "-sweep", "max_turns=1,2"}, "not -sweep"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-workers", "0"}, "-workers 0"},
		{[]string{"-profile", "codex,seed,codex"}, `codex and codex are both named "codex"`},
		{[]string{"-profile", "no-such-policy.json"}, "policy file: open no-such-policy.json"},
	} {
		code, _, stderr := simulateArgs(t, append([]string{"simulate"}, c.args...)...)
		assert.Equal(t, simExitBadInput, code, "%v: exit code; stderr %q", c.args, stderr)
		assert.Contains(t, stderr, c.want, "%v", c.args)
	}
}

func TestSimulateHelpAndFields(t *testing.T) {
	code, _, stderr := simulateArgs(t, "simulate", "-h")
	assert.Equal(t, simExitOK, code, "-h: exit code")
	assert.Contains(t, stderr, "-sweep", "-h")
	assert.Contains(t, stderr, "Examples:", "-h")
	code, stdout, _ := simulateArgs(t, "simulate", "-fields")
	assert.Equal(t, simExitOK, code, "-fields: exit code")
	assert.Contains(t, stdout, "auto_compact_buffer", "-fields")
	assert.Contains(t, stdout, "workload.faults.overloaded", "-fields")
}

// TestBriefCompletedLeavesOutFailures: the brief's completed column is the
// summary's (a completion after an API error is a failure), so completed
// and failed never add up past 100%.
func TestBriefCompletedLeavesOutFailures(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := simulateArgs(t, "-n", "300", "-seed", "3", "-profile", "seed", "-transcripts", "",
		"-plots=false", "-check=false", "-out", dir)
	require.Equal(t, simExitOK, code, "stderr: %s", stderr)
	var completed, failed float64
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "seed" {
			_, err := fmt.Sscanf(f[1], "%f%%", &completed)
			require.NoError(t, err, line)
			_, err = fmt.Sscanf(f[2], "%f%%", &failed)
			require.NoError(t, err, line)
		}
	}
	require.Positive(t, failed, "the seed profile fails after API errors at this size:\n%s", stdout)
	assert.LessOrEqual(t, completed+failed, 100.05, "completed %.1f%% + failed %.1f%%:\n%s", completed, failed, stdout)
	summary, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), fmt.Sprintf("| seed | %.1f%%", completed), "the summary's completed figure")
}

// The default command is set in one place (main.go), is registered, and
// help names it (TestSimulateIsTheDefault runs it).
func TestDefaultCommandIsSimulate(t *testing.T) {
	c, ok := commands[defaultCommand]
	require.True(t, ok, "the default command %q is not registered", defaultCommand)
	assert.Equal(t, "simulate", c.name)
	var out strings.Builder
	usage(&out)
	assert.Contains(t, out.String(), `With no subcommand, "simulate" runs.`)
}
