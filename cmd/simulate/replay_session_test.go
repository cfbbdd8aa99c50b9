package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplaySession: a session log replayed under the profile and with
// an override prints both against the real session and writes the plot.
func TestReplaySession(t *testing.T) {
	logs, out := t.TempDir(), t.TempDir()
	log := writeSessionLog(t, logs, 120)
	code, stdout, stderr := simulateArgs(t, "replay-session", "-set", "auto_compact_buffer=150000", "-set", "model.context_window=200000", "-out", out, log)
	require.Equal(t, simExitOK, code, stderr)
	assert.Contains(t, stdout, "120 calls of claude-fixture-1")
	assert.Contains(t, stdout, "real session")
	assert.Contains(t, stdout, "claude-code auto_compact_buffer=150000")
	assert.Contains(t, stdout, "against claude-code: tokens")
	st, err := os.Stat(filepath.Join(out, "replay-session.png"))
	require.NoError(t, err)
	assert.Positive(t, st.Size())
}

func TestReplaySessionBadInput(t *testing.T) {
	code, _, stderr := simulateArgs(t, "replay-session")
	assert.Equal(t, simExitBadInput, code)
	assert.Contains(t, stderr, "give one session log")
	log := writeSessionLog(t, t.TempDir(), 10)
	code, _, stderr = simulateArgs(t, "replay-session", "-set", "no_such_field=1", log)
	assert.Equal(t, simExitBadInput, code)
	assert.Contains(t, stderr, "no_such_field")
	code, _, stderr = simulateArgs(t, "replay-session", filepath.Join(t.TempDir(), "missing.jsonl"))
	assert.Equal(t, simExitBadInput, code)
	assert.Contains(t, stderr, "missing.jsonl")
}
