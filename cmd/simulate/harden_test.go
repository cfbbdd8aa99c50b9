package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// violating is a simulation whose episodes break the termination
// invariant: the seed under a stop hook that always blocks, halted after
// 30 iterations.
var violating = []string{"-n", "20", "-profile", "seed", "-set", "workload.faults.stop_hook_block=1",
	"-set", "workload.faults.stop_hook_repeat=1", "-set", "iteration_limit=30", "-plots=false", "-calibrate", "0", "-transcripts", ""}

// TestSimulateExitsNonZeroOnViolations: episodes that break an invariant
// make the exit status 3, and their replay commands are printed on the
// terminal, not only in summary.md.
func TestSimulateExitsNonZeroOnViolations(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, append(violating, "-out", dir)...)
	require.Equal(t, simExitViolations, code, stderr)
	assert.Contains(t, stdout, "seed: 14 episodes broke invariants; the first:")
	assert.Contains(t, stdout, "episode 0: termination: halted by the iteration limit after 30 iterations")
	assert.Regexp(t, `replay: go run ./cmd/simulate -profile seed .*-replay 0x[0-9a-f]+`, stdout)
	assert.Equal(t, 3, strings.Count(stdout, "replay: "), "the first three of the setting")
	assert.FileExists(t, filepath.Join(dir, "summary.md"))
}

// TestReplayExitsNonZeroOnViolation: -replay of a violating episode
// exits 3, in text and in JSON (violations then on stderr).
func TestReplayExitsNonZeroOnViolation(t *testing.T) {
	_, stdout, _ := runCLI(t, append(violating, "-out", t.TempDir())...)
	m := regexp.MustCompile(`-replay (0x[0-9a-f]+)`).FindStringSubmatch(stdout)
	require.NotNil(t, m, stdout)
	args := []string{"-profile", "seed", "-set", "workload.faults.stop_hook_block=1", "-set", "workload.faults.stop_hook_repeat=1",
		"-set", "iteration_limit=30", "-replay", m[1]}
	code, stdout, stderr := runCLI(t, args...)
	require.Equal(t, simExitViolations, code, stderr)
	assert.Contains(t, stdout, "violation: termination")
	code, stdout, stderr = runCLI(t, append(args, "-json")...)
	require.Equal(t, simExitViolations, code)
	assert.Contains(t, stderr, "violation: termination")
	assert.NotContains(t, stdout, "violation:", "stdout holds the trace alone")
}

// TestSimulateValidatesBeforeRunning: bad prices, ranges and a missing
// transcripts folder are refused (exit 2) before any episode runs.
func TestSimulateValidatesBeforeRunning(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-prices", "input=NaN"}, `simulate: -prices: prices: input: "NaN" is not a number of dollars per million tokens from 0 to 100000`},
		{[]string{"-prices", "output=1e300"}, `"1e300" is not a number of dollars per million tokens`},
		{[]string{"-sweep", "max_turns=0:Inf:1"}, `simulate: -sweep: sweep max_turns: range "0:Inf:1": "Inf" is not a finite number`},
		{[]string{"-sweep", "max_turns=0:NaN:1"}, `range "0:NaN:1": "NaN" is not a finite number`},
		{[]string{"-sweep", "backoff_jitter=0:1e300:1e-300"}, `range "0:1e300:1e-300": more than 10^308 values, at most 100`},
		{[]string{"-sweep", "backoff_jitter=0:1e308:1e-308"}, `values, at most 100`},
		{[]string{"-transcripts", "/no/such/folder"}, "simulate: -transcripts: stat /no/such/folder: no such file or directory"},
	} {
		dir := t.TempDir()
		code, stdout, stderr := runCLI(t, append(c.args, "-n", "5", "-out", dir)...)
		assert.Equal(t, simExitBadInput, code, "%v: %s", c.args, stderr)
		assert.Contains(t, stderr, c.want, "%v", c.args)
		assert.Empty(t, stdout, "%v: nothing ran", c.args)
		assert.NoFileExists(t, filepath.Join(dir, "summary.md"))
	}
}

// TestOutClearsStalePlots: the plots an earlier run left in -out are
// removed; other files are not.
func TestOutClearsStalePlots(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"sweep.png", "sweep.svg", "context-seed.svg", "pareto.png", "notes.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("old"), 0o644))
	}
	code, _, stderr := runCLI(t, "-n", "5", "-plots=false", "-calibrate", "0", "-transcripts", "", "-out", dir)
	require.Equal(t, simExitOK, code, stderr)
	for _, f := range []string{"sweep.png", "sweep.svg", "context-seed.svg", "pareto.png"} {
		assert.NoFileExists(t, filepath.Join(dir, f))
	}
	assert.FileExists(t, filepath.Join(dir, "notes.txt"))
}

// TestRunOnAnEmptyDirectory: no scenario is an error, not "0 passed".
func TestRunOnAnEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", dir)
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "run: no scenario files in "+dir+" (a directory stands for the .yaml files directly in it)\n", stderr)
}

// TestRunSummaryCountsFilesThatDidNotLoad: the summary line says how
// many files did not load.
func TestRunSummaryCountsFilesThatDidNotLoad(t *testing.T) {
	bad := writeScenario(t, "bad", "name: bad\n")
	code, stdout, _ := runCLI(t, "run", nextTurn, bad, "../../scenarios/testdata/broken/alias-undefined.yaml")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stdout, "1 passed, 0 failed, 0 skipped, 2 did not load\n")
}
