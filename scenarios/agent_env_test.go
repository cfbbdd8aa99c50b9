package scenarios_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
