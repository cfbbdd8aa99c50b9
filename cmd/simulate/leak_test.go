package main

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: the
// code under test starts goroutines (tool calls, background summaries,
// model calls that can be abandoned, simulation workers) that must all
// end.
//
// With childEnv set the binary is a shard process of simulate -shards
// (see shardExecutable): it runs the command line instead.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
	}
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("os/signal.loop") /* signal.NotifyContext starts it once per process */, goleak.Cleanup(removeTestAgent))
}
