package scenarios_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/scenarios"
)

// TestAgentPrepare: Prepare gets the server's URL before the command
// starts, its variables and folder reach the command (after Env), its
// Cleanup runs when the run ends, and the prompt is in LOOPSIM_PROMPT.
func TestAgentPrepare(t *testing.T) {
	dir := t.TempDir()
	var gotURL string
	cleaned := false
	a := scenarios.Agent{
		Command: `echo "$HOME|$PWD|$LOOPSIM_PROMPT|$X"`,
		Env:     []string{"X=from-env", "HOME=/not/this"},
		Timeout: 30 * time.Second,
		Prepare: func(url string) (scenarios.AgentWorkspace, error) {
			gotURL = url
			return scenarios.AgentWorkspace{Env: []string{"HOME=" + dir}, Dir: dir, Cleanup: func() { cleaned = true }}, nil
		},
	}
	s := libraryScenario(t, "cc-truncation-recovery")
	out, err := scenarios.RunAgent(context.Background(), s, a)
	var ae *scenarios.AgentError
	require.True(t, errors.As(err, &ae), "the command calls no server: %v", err)
	assert.True(t, strings.HasPrefix(gotURL, "http://127.0.0.1:"), gotURL)
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	assert.Equal(t, dir+"|"+real+"|"+s.Conversation[0].Text+"|from-env", out.LastOutput)
	assert.True(t, cleaned)
}

// TestAgentPrepareFails: a Prepare error ends the run before the command
// starts, naming the scenario.
func TestAgentPrepareFails(t *testing.T) {
	a := scenarios.Agent{Command: "exit 0", Prepare: func(string) (scenarios.AgentWorkspace, error) {
		return scenarios.AgentWorkspace{}, errors.New("no disk")
	}}
	_, err := scenarios.RunAgent(context.Background(), libraryScenario(t, "cc-truncation-recovery"), a)
	assert.ErrorContains(t, err, "scenario cc-truncation-recovery: preparing the agent: no disk")
}
