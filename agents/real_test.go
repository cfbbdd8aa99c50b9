package agents

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/scenarios"
)

// RealEnv is the variable that turns on the tests running the released
// agents (LOOPSIM_AGENTS=1); each preset's binary is looked up on PATH
// and its test skipped, saying so, when it is not there.
const RealEnv = "LOOPSIM_AGENTS"

// TestPresetRunsForReal runs each installed agent through its preset on
// one scenario: a 429 with a retry-after of one second, then a reply.
// Every agent retries it; the request sequence must be M:429 then a
// text, and the agent must exit 0.
func TestPresetRunsForReal(t *testing.T) {
	if os.Getenv(RealEnv) == "" {
		t.Skipf("set %s=1 to run the released agents (their binaries on PATH)", RealEnv)
	}
	s, err := scenarios.LoadFile("../scenarios/matrix/rate-limited-retry-after.yaml")
	require.NoError(t, err)
	for _, p := range Presets() {
		t.Run(p.Name, func(t *testing.T) {
			bin, err := p.Find("")
			if err != nil {
				t.Skip(err.Error())
			}
			a := p.Agent(bin)
			a.Timeout = 3 * time.Minute
			out, err := scenarios.RunAgent(context.Background(), s, a)
			require.NoError(t, err)
			labels := wire.Labels(out.Records)
			require.GreaterOrEqual(t, len(labels), 2, "requests: %v", labels)
			assert.Equal(t, []string{"M:429", "M:text"}, labels[:2])
			assert.Equal(t, 0, out.Exit, "stderr: %s", out.Stderr)
		})
	}
}
