//go:build unix

package main

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInterruptedShardIsPartial: Ctrl-C during a shard writes its shard
// file with the episodes that finished, marked partial, exits 130, and
// merge refuses the shard, naming it.
func TestInterruptedShardIsPartial(t *testing.T) {
	var once sync.Once
	testHookProgress = func(done, total int) {
		if done >= 20 {
			once.Do(func() { require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGINT)) })
		}
	}
	defer func() { testHookProgress = nil }()
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "-n", "100000", "-workers", "1", "-transcripts", "", "-shard", "1/2", "-record", "yes", "-out", dir)
	require.Equal(t, simExitInterrupted, code, stderr)
	file := filepath.Join(dir, "shard-1-of-2.shard")
	assert.Contains(t, stdout, "interrupted: wrote "+file)
	assert.Contains(t, stdout, "marked partial")
	_, err := os.Stat(filepath.Join(dir, "shard-1-of-2.parquet"))
	assert.True(t, os.IsNotExist(err), "an interrupted shard leaves no record")

	code, _, stderr = runCLI(t, "merge", "-out", t.TempDir(), file)
	assert.Equal(t, simExitBadInput, code)
	assert.Contains(t, stderr, file+": shard 1/2 was interrupted after")
}

// TestInterruptedLocalShards: Ctrl-C during -shards reaches every shard
// process; each writes what finished, marked partial, nothing is merged,
// and the run exits 130.
func TestInterruptedLocalShards(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	shardExecutable = func() (string, error) { return exe, nil }
	t.Setenv(childEnv, "1")
	dir := t.TempDir()
	timer := time.AfterFunc(2*time.Second, func() { _ = syscall.Kill(os.Getpid(), syscall.SIGINT) })
	defer timer.Stop()
	code, stdout, stderr := runCLI(t, "-n", "1000000", "-workers", "2", "-transcripts", "", "-shards", "2", "-out", dir)
	require.Equal(t, simExitInterrupted, code, stderr)
	assert.Contains(t, stderr, "interrupted: the shards wrote what finished to "+filepath.Join(dir, "shards"))
	assert.NotContains(t, stdout, "merged")
	files, err := filepath.Glob(filepath.Join(dir, "shards", "shard-*.shard"))
	require.NoError(t, err)
	for _, f := range files {
		code, _, stderr := runCLI(t, "merge", "-out", t.TempDir(), f)
		assert.Equal(t, simExitBadInput, code)
		assert.Contains(t, stderr, "was interrupted after", f)
	}
	_, err = os.Stat(filepath.Join(dir, "summary.md"))
	assert.True(t, os.IsNotExist(err), "nothing merged")
}
