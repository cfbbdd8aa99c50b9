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

// TestInterruptWritesWhatFinished: Ctrl-C during a simulation writes the
// summary and metrics of the episodes that finished, marked partial, and
// exits 130.
func TestInterruptWritesWhatFinished(t *testing.T) {
	var once sync.Once
	testHookProgress = func(done, total int) {
		if done >= 40 {
			once.Do(func() { require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGINT)) })
		}
	}
	defer func() { testHookProgress = nil }()
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "-n", "100000", "-workers", "1", "-transcripts", "", "-out", dir)
	require.Equal(t, simExitInterrupted, code, stderr)
	assert.Contains(t, stderr, "simulate: sim: interrupted after")
	assert.Contains(t, stdout, "interrupted: wrote "+filepath.Join(dir, "summary.md"))
	summary, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "**Partial: interrupted** after ")
	metrics, err := os.ReadFile(filepath.Join(dir, "metrics.json"))
	require.NoError(t, err)
	assert.Contains(t, string(metrics), `"partial": true`)
}

// TestTranscriptsNotAFolderOrLog: -transcripts given something that is
// neither a folder nor a session log file (a device) is refused before
// anything runs, naming the path; it ran as if given an empty folder.
// simulate calibrate refuses it too.
func TestTranscriptsNotAFolderOrLog(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "-n", "5", "-plots=false", "-transcripts", "/dev/null", "-out", dir)
	assert.Equal(t, simExitBadInput, code, stderr)
	assert.Contains(t, stderr, "simulate: -transcripts /dev/null: neither a folder nor a regular file (a character device)")
	assert.Empty(t, stdout)
	assert.NoFileExists(t, filepath.Join(dir, "summary.md"))

	code, _, stderr = runCLI(t, "calibrate", "-out", dir, "/dev/null")
	assert.Equal(t, simExitBadInput, code, stderr)
	assert.Contains(t, stderr, "calibrate: transcript: /dev/null is neither a folder nor a regular file (a character device)")
}
