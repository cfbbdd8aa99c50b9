package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slurmExample holds the Slurm job-array example.
var slurmExample = filepath.Join(examplesDir, "slurm")

// slurmShardLine returns the simulate command line of the array script
// (the words after "$simulate") and its array's size.
func slurmShardLine(t *testing.T) ([]string, int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(slurmExample, "shards.sbatch"))
	require.NoError(t, err)
	var line []string
	size := 0
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, `"$simulate" `); ok {
			line = strings.Fields(rest)
		}
		if spec, ok := strings.CutPrefix(l, "#SBATCH --array=0-"); ok {
			last, err := strconv.Atoi(strings.TrimSpace(spec))
			require.NoError(t, err, "--array=0-%s", spec)
			size = last + 1
		}
	}
	require.NotEmpty(t, line, `a line running "$simulate"`)
	require.Positive(t, size, "an --array=0-N directive")
	return line, size
}

// TestSlurmJobArrayExample: the array's tasks 0 to n-1, each with
// SLURM_ARRAY_TASK_ID set as Slurm sets it, are shards 0 to n-1 of n.
func TestSlurmJobArrayExample(t *testing.T) {
	line, size := slurmShardLine(t)
	args := strings.NewReplacer(`"$episodes"`, "4000", `"$shards"`, t.TempDir()).Replace(strings.Join(line, " "))
	for i := range size {
		t.Setenv("SLURM_ARRAY_TASK_ID", strconv.Itoa(i))
		p := planOf(t, strings.Fields(args))
		assert.Equal(t, strconv.Itoa(i)+"/"+strconv.Itoa(size), p.shard.String(), "array task %d", i)
	}
}

// slurmUp skips the test unless a Slurm cluster answers (.ci/run starts
// a one-node one where it can).
func slurmUp(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("sbatch"); err != nil {
		t.Skip("sbatch is not installed: the job-array example is not run on Slurm (.ci/run installs and starts a one-node cluster where it can)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "sinfo", "-h", "-o", "%t").Output()
	state := strings.TrimSpace(string(out))
	if err != nil || !(strings.HasPrefix(state, "idle") || strings.HasPrefix(state, "mix") || strings.HasPrefix(state, "alloc")) {
		t.Skipf("no Slurm node is up (sinfo: %q, %v): the job-array example is not run on Slurm", state, err)
	}
}

// TestSlurmJobArrayOnSlurm runs the example on a real Slurm cluster: the
// array's tasks run the shards from their own scratch folders, the merge
// job runs in the checkout, and the merged metrics.json and summary.md
// are byte for byte the single run's, by the same binary. A Slurm that
// fails to run the jobs (no task output at all, or the jobs never end)
// skips the test; a shard or merge that fails fails it.
func TestSlurmJobArrayOnSlurm(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the job-array example is not run on Slurm")
	}
	slurmUp(t)
	checkout, err := os.Getwd()
	require.NoError(t, err)
	work := t.TempDir()
	bin := filepath.Join(work, "simulate")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	const episodes = "400"
	submit, shards, merged := filepath.Join(work, "submit"), filepath.Join(work, "shards"), filepath.Join(work, "merged")
	require.NoError(t, os.Mkdir(submit, 0o755))
	env := "ALL,SIMULATE=" + bin + ",EPISODES=" + episodes + ",SHARDS=" + shards + ",OUT=" + merged

	sbatch := func(dir, script string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		script, err := filepath.Abs(filepath.Join(slurmExample, script))
		require.NoError(t, err)
		cmd := exec.CommandContext(ctx, "sbatch", "--wait", "--parsable", "--chdir="+dir, "--export="+env, script)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		job := strings.TrimSpace(strings.Split(stdout.String(), ";")[0])
		logs, _ := filepath.Glob(filepath.Join(dir, "loopsim-*"+job+"*.out"))
		var text strings.Builder
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			text.WriteString(l + ":\n" + string(b))
		}
		switch {
		case ctx.Err() != nil:
			if job != "" {
				_ = exec.Command("scancel", job).Run()
			}
			t.Skipf("Slurm did not finish %s within 3 minutes (job %q): %s", script, job, stderr.String())
		case err != nil && len(logs) == 0:
			t.Skipf("Slurm ran no task of %s (sbatch: %v: %s)", script, err, stderr.String())
		}
		require.NoError(t, err, "%s (job %s) failed:\n%s%s", script, job, stderr.String(), text.String())
	}
	sbatch(submit, "shards.sbatch")
	sbatch(checkout, "merge.sbatch")
	logs, _ := filepath.Glob(filepath.Join(checkout, "loopsim-merge-*.out"))
	for _, l := range logs {
		os.Remove(l)
	}

	single := filepath.Join(work, "single")
	line, _ := slurmShardLine(t)
	var args []string
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case "-shard-index-env", "-shard":
			i++
		case `"$episodes"`:
			args = append(args, episodes)
		case `"$shards"`:
			args = append(args, single)
		default:
			args = append(args, line[i])
		}
	}
	run := exec.Command(bin, args...)
	run.Dir = work
	out, err = run.CombinedOutput()
	require.NoError(t, err, "the single run %q: %s", args, out)
	for _, f := range []string{"metrics.json", "summary.md"} {
		want, err := os.ReadFile(filepath.Join(single, f))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(merged, f))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(want, got), "%s differs between the single run and the shards merged on Slurm", f)
	}
}
