//go:build unix

package main

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

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
