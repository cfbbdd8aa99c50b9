package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/loopsim/loopsim/sim"
)

// shardExecutable is the binary -shards starts its processes from: this
// one (tests replace it by the test binary, which runs the command line
// when childEnv is set).
var shardExecutable = os.Executable

// childEnv, set in a process's environment, tells a test binary to run
// the command line instead of the tests.
const childEnv = "LOOPSIM_SIMULATE_CHILD"

// simulateShards runs the simulation as o.shards processes of this
// binary, each a shard writing to -out/shards, and merges them into -out.
// Ctrl-C reaches every shard (each writes what finished, marked
// partial) and nothing is merged.
func simulateShards(ctx context.Context, p *simPlan, o *simOptions, stdout, stderr io.Writer) int {
	exe, err := shardExecutable()
	if err != nil {
		fmt.Fprintf(stderr, "simulate: -shards: %v\n", err)
		return simExitFailed
	}
	dir := filepath.Join(o.out, "shards")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "simulate: -shards: %v\n", err)
		return simExitFailed
	}
	old, _ := filepath.Glob(filepath.Join(dir, "shard-*"))
	for _, f := range old {
		os.Remove(f)
	}
	n := o.shards
	workers := max(1, (o.workers+n-1)/n)
	start := time.Now() // shown only
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := make([]error, n)
	logs := make([]bytes.Buffer, n)
	for i := range n {
		sh := sim.Shard{Index: i, Count: n}
		args := append([]string{"simulate"}, o.runArgs()...)
		args = append(args, "-shard", sh.String(), "-out", dir, "-progress=false", "-plots=false", "-workers", strconv.Itoa(workers))
		if o.record != "" {
			args = append(args, "-record", "yes")
		}
		cmd := exec.CommandContext(ctx, exe, args...)
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
		cmd.WaitDelay = time.Minute
		cmd.Stdout, cmd.Stderr = &logs[i], &logs[i]
		detach(cmd)
		if err := cmd.Start(); err != nil {
			if ctx.Err() != nil {
				break // interrupted before every shard started: the started ones stop, below
			}
			fmt.Fprintf(stderr, "simulate: -shards: shard %s: %v\n", sh, err)
			wg.Wait()
			return simExitFailed
		}
		wg.Go(func() {
			err := cmd.Wait()
			mu.Lock()
			defer mu.Unlock()
			failed[i] = err
			if err == nil {
				fmt.Fprintf(stderr, "shard %s done after %.1f s\n", sh, time.Since(start).Seconds())
			}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "simulate: interrupted: the shards wrote what finished to %s, marked partial; nothing merged\n", dir)
		return simExitInterrupted
	}
	var names []string
	for i, err := range failed {
		sh := sim.Shard{Index: i, Count: n}
		if err != nil {
			var ee *exec.ExitError
			code := -1
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			}
			fmt.Fprintf(stderr, "simulate: -shards: shard %s failed (exit %d): %v\n%s", sh, code, err, logs[i].String())
			return simExitFailed
		}
		names = append(names, filepath.Join(dir, shardName(sh)))
	}
	wall := time.Since(start)
	code := merge(ctx, names, mergeOptions{out: o.out, record: o.record, plots: o.plots, workers: o.workers}, stdout, stderr)
	fmt.Fprintf(stdout, "%d shards as processes: %.1f s wall time, %.1f s with the merge\n", n, wall.Seconds(), time.Since(start).Seconds())
	return code
}
