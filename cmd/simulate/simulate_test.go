package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopsim/loopsim/sim"
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
	if code != simExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "claude-code") || !strings.Contains(stdout, "wrote "+filepath.Join(dir, "summary.md")) {
		t.Errorf("stdout:\n%s", stdout)
	}
	for _, f := range []string{"summary.md", "metrics.csv", "metrics.json", "context.png", "context.svg", "tokens.png",
		"tokens.svg", "terminals.png", "terminals.svg", "pareto.png", "pareto.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	for _, want := range []string{"## Outcomes", "## Safety: invariants", "## Liveness: termination", "![", "context.png"} {
		if !bytes.Contains(summary, []byte(want)) {
			t.Errorf("summary lacks %q", want)
		}
	}
}

// TestSimulateDoesNotDependOnWorkers: one worker and three write the
// same summary.
func TestSimulateDoesNotDependOnWorkers(t *testing.T) {
	var summaries [][]byte
	for _, w := range []string{"1", "3"} {
		dir := t.TempDir()
		if code, _, stderr := simulateArgs(t, "simulate", "-n", "30", "-transcripts", "", "-swarm", "-plots=false", "-workers", w, "-out", dir); code != simExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(dir, "summary.md"))
		if err != nil {
			t.Fatal(err)
		}
		summaries = append(summaries, b)
	}
	if !bytes.Equal(summaries[0], summaries[1]) {
		t.Error("the summary depends on the number of workers")
	}
}

func TestSimulateSweep(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := simulateArgs(t, "-n", "8", "-profile", "claude-code", "-sweep", "auto_compact_buffer=5000,13000",
		"-sweep", "workload.faults.overloaded=0,0.05", "-check=false", "-plots=false", "-calibrate", "0", "-out", dir)
	if code != simExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "metrics.csv"))
	if n := strings.Count(string(csv), "\n"); n != 5 {
		t.Errorf("metrics.csv has %d lines, want a header and 4 settings", n)
	}
}

func TestSimulateReplay(t *testing.T) {
	seed := fmt.Sprintf("%#x", sim.EpisodeSeed(1, 0))
	code, stdout, stderr := simulateArgs(t, "-profile", "seed", "-set", "workload.faults.abort=0", "-replay", seed)
	if code != simExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "iteration 1 ") || !strings.Contains(stdout, "episode seed "+seed) {
		t.Errorf("stdout:\n%s", stdout)
	}
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
	} {
		code, _, stderr := simulateArgs(t, append([]string{"simulate"}, c.args...)...)
		if code != simExitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, simExitBadInput, c.want)
		}
	}
}

func TestSimulateHelpAndFields(t *testing.T) {
	code, _, stderr := simulateArgs(t, "simulate", "-h")
	if code != simExitOK || !strings.Contains(stderr, "-sweep") || !strings.Contains(stderr, "Examples:") {
		t.Errorf("-h: exit %d\n%s", code, stderr)
	}
	code, stdout, _ := simulateArgs(t, "simulate", "-fields")
	if code != simExitOK || !strings.Contains(stdout, "auto_compact_buffer") || !strings.Contains(stdout, "workload.faults.overloaded") {
		t.Errorf("-fields: exit %d\n%s", code, stdout)
	}
}
