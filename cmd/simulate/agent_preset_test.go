package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAgentPresetBadInput: an unknown preset, or one whose binary is not
// on PATH, is bad input, named on stderr.
func TestAgentPresetBadInput(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, exitBadInput, dispatch([]string{"agent", "--preset", "nope", "x.yaml"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), `no preset "nope" (known: claude-code, codex`)

	t.Setenv("PATH", t.TempDir())
	stderr.Reset()
	assert.Equal(t, exitBadInput, dispatch([]string{"agent", "--preset", "codex", "x.yaml"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "codex (@openai/codex 0.169.0) not found on PATH; install it or give its path with --cmd")
}
