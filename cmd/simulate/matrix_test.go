package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMatrixBadInput: an unknown preset, a -cmd for a preset not in the
// run, no scenario, a scenario that does not load: exit 2, said on
// stderr.
func TestMatrixBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--preset", "nope", "x.yaml"}, `no preset "nope"`},
		{[]string{"--preset", "codex", "-cmd", "opencode=/x", "../../scenarios/matrix"}, "-cmd opencode: not a preset of this run"},
		{[]string{"--preset", "codex"}, "name scenario files or directories"},
		{[]string{"--preset", "codex", "no-such.yaml"}, "no-such.yaml"},
		{[]string{"-cmd", "codex", "x.yaml"}, "want NAME=PATH"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, exitBadInput, dispatch(append([]string{"matrix"}, tc.args...), &stdout, &stderr), "%v", tc.args)
		assert.Contains(t, stderr.String(), tc.want, "%v", tc.args)
	}
}

// TestMatrixSkipsAbsentAgents: with no agent installed every one is
// skipped with a message, and the table and JSON still name them.
func TestMatrixSkipsAbsentAgents(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"matrix", "-out", out, "../../scenarios/matrix/server-error-once.yaml"}, &stdout, &stderr)
	require.Equal(t, exitPass, code, stderr.String())
	assert.Contains(t, stderr.String(), "matrix: skipping codex: agents: preset codex: codex (@openai/codex 0.169.0) not found on PATH")
	md, err := os.ReadFile(filepath.Join(out, "matrix.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| opencode | `opencode-ai` | 1.18.33 (absent: not run) | chat |")
	var m struct {
		Agents    []struct{ Name, Absent string }
		Scenarios []string
		Cells     []any
	}
	data, err := os.ReadFile(filepath.Join(out, "matrix.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &m))
	assert.Len(t, m.Agents, 5)
	assert.Equal(t, []string{"server-error-once"}, m.Scenarios)
	assert.Empty(t, m.Cells)
}
