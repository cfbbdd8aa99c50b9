package scenarios_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/scenarios"
)

// A variable of the caller's shell that would change an agent's policy
// does not reach the agent unless asked for; Env and the base variables
// do.
func TestAgentEnvironmentIsClean(t *testing.T) {
	bin := testAgent(t)
	t.Setenv("IS_SANDBOX", "1")
	t.Setenv("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "8000")
	show := `printf 'sandbox=%s max=%s extra=%s path=%s key=%s\n' "${IS_SANDBOX-unset}" "${CLAUDE_CODE_MAX_OUTPUT_TOKENS-unset}" "${EXTRA-unset}" "${PATH:+set}" "$ANTHROPIC_API_KEY" >&2; exec ` + bin
	s := libraryScenario(t, "cc-truncation-recovery")
	for _, c := range []struct {
		name    string
		inherit bool
		want    string
	}{
		{"by default", false, "sandbox=unset max=unset extra=yes path=set key=" + scenarios.DummyAPIKey},
		{"inherited", true, "sandbox=1 max=8000 extra=yes path=set key=" + scenarios.DummyAPIKey},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := scenarios.RunAgent(context.Background(), s, scenarios.Agent{Command: show, Env: []string{"EXTRA=yes"},
				InheritEnv: c.inherit, Timeout: 30 * time.Second})
			require.NoError(t, err)
			assert.Contains(t, out.Stderr, c.want)
			assert.True(t, out.Passed(), out.Diff())
		})
	}
}

// The agent gets every API's variables for the server (its base URL and
// a dummy key), whatever API it speaks, even over the caller's own.
func TestAgentGetsEveryAPIsVariables(t *testing.T) {
	bin := testAgent(t)
	t.Setenv("ANTHROPIC_BASE_URL", "https://api.anthropic.com")
	s := libraryScenario(t, "cc-truncation-recovery")
	out, err := scenarios.RunAgent(context.Background(), s, scenarios.Agent{Command: "env >&2; exec " + bin,
		InheritEnv: true, Timeout: 30 * time.Second})
	require.NoError(t, err)
	env := fakeapi.ClientEnv("BASE")
	require.NotEmpty(t, env)
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		url, _ := strings.CutPrefix(out.Stderr[strings.Index(out.Stderr, "ANTHROPIC_BASE_URL="):], "ANTHROPIC_BASE_URL=")
		url, _, _ = strings.Cut(url, "\n")
		want := name + "=" + strings.ReplaceAll(value, "BASE", url)
		assert.Contains(t, out.Stderr, want+"\n")
	}
	assert.NotContains(t, out.Stderr, "ANTHROPIC_BASE_URL=https://api.anthropic.com")
	assert.True(t, out.Passed(), out.Diff())
}
