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

// TestAgentConfigure: Configure sees the scenario before the command
// starts; its command replaces the agent's, its variables come after
// Env (the scenario's policy wins) and before the workspace's, and what
// it applied and did not is in the outcome.
func TestAgentConfigure(t *testing.T) {
	s := libraryScenario(t, "codex-server-error-retry-layers")
	var seen string
	a := scenarios.Agent{
		Command: "echo not this",
		Env:     []string{"X=from-env", "Y=from-env"},
		Timeout: 30 * time.Second,
		Configure: func(s *scenarios.Scenario) (scenarios.AgentConfig, error) {
			seen = s.Name
			return scenarios.AgentConfig{Command: `echo "$X|$Y|$Z"`, Env: []string{"Y=from-policy", "Z=from-policy"},
				Applied: []string{"api_retries=2: Y=from-policy"}, NotApplied: []string{"stream_retries"}}, nil
		},
		Prepare: func(string) (scenarios.AgentWorkspace, error) {
			return scenarios.AgentWorkspace{Env: []string{"Z=from-workspace"}}, nil
		},
	}
	out, err := scenarios.RunAgent(context.Background(), s, a)
	var ae *scenarios.AgentError
	require.True(t, errors.As(err, &ae), "the command calls no server: %v", err)
	assert.Equal(t, s.Name, seen)
	assert.Equal(t, "from-env|from-policy|from-workspace", out.LastOutput)
	assert.Equal(t, []string{"api_retries=2: Y=from-policy"}, out.Applied)
	assert.Equal(t, []string{"stream_retries"}, out.NotApplied)
}

// TestAgentWithoutConfigure: an agent with no known settings takes none
// of the scenario's policy: every override is not applied, once each, in
// the order written.
func TestAgentWithoutConfigure(t *testing.T) {
	s := libraryScenario(t, "codex-server-error-retry-layers")
	out, _ := scenarios.RunAgent(context.Background(), s, scenarios.Agent{Command: "echo hi", Timeout: 30 * time.Second})
	require.NotNil(t, out)
	assert.Equal(t, []string{"api_retries", "stream_retries"}, out.NotApplied)
	assert.Empty(t, out.Applied)
	s.Policy = append(s.Policy, scenarios.PolicyOverride{Field: "api_retries", Value: "3"})
	assert.Equal(t, []string{"api_retries", "stream_retries"}, s.PolicyFields())
	none := libraryScenario(t, "cc-truncation-recovery")
	out, _ = scenarios.RunAgent(context.Background(), none, scenarios.Agent{Command: "echo hi", Timeout: 30 * time.Second})
	require.NotNil(t, out)
	assert.Empty(t, out.NotApplied)
}

// TestAgentConfigureFails: a Configure error ends the run before the
// server starts, naming the scenario.
func TestAgentConfigureFails(t *testing.T) {
	a := scenarios.Agent{Command: "exit 0", Configure: func(*scenarios.Scenario) (scenarios.AgentConfig, error) {
		return scenarios.AgentConfig{}, errors.New("api_retries 200 is over the agent's 100")
	}}
	_, err := scenarios.RunAgent(context.Background(), libraryScenario(t, "cc-truncation-recovery"), a)
	assert.ErrorContains(t, err, "scenario cc-truncation-recovery: configuring the agent: api_retries 200 is over the agent's 100")
}
