//go:build unix

package scenarios

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// loadsWithin fails the test when f does not return within a few
// seconds: a loader that blocks on a named pipe would hang for ever.
func loadsWithin(t *testing.T, f func() ([]*Scenario, error)) ([]*Scenario, error) {
	t.Helper()
	type result struct {
		list []*Scenario
		err  error
	}
	done := make(chan result, 1)
	go func() {
		list, err := f()
		done <- result{list, err}
	}()
	select {
	case r := <-done:
		return r.list, r.err
	case <-time.After(5 * time.Second):
		require.FailNow(t, "the loader blocked")
		return nil, nil
	}
}

// TestLoadRefusesNamedPipes: a FIFO named x.yaml, alone or in a
// directory, is an error naming it, never a read that blocks.
func TestLoadRefusesNamedPipes(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	good, err := os.ReadFile("library/seed-next-turn.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), good, 0o644))
	want := fifo + ": a named pipe (FIFO), not a regular file: a scenario is read from a .yaml file"

	_, err = loadsWithin(t, func() ([]*Scenario, error) { return Load(fifo) })
	require.EqualError(t, err, want)

	list, err := loadsWithin(t, func() ([]*Scenario, error) { return Load(dir) })
	require.EqualError(t, err, want)
	require.Len(t, list, 1, "the regular file beside the pipe still loads")

	_, err = loadsWithin(t, func() ([]*Scenario, error) { return LoadFS(os.DirFS(dir), ".") })
	require.EqualError(t, err, "x.yaml: a named pipe (FIFO), not a regular file: a scenario is read from a .yaml file")
}
