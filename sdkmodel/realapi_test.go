package sdkmodel_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/sdkmodel"
	"github.com/loopsim/loopsim/sdkmodel/sdktest"
)

// RealAPIKeyEnv names the key that opts TestRealAPI in. It is not
// ANTHROPIC_API_KEY, so that a key in a developer's or CI's environment
// never sends a request by accident.
const RealAPIKeyEnv = "LOOPSIM_REAL_API_KEY"

// The loop runs one short conversation against the real API. Opt-in,
// never in CI: LOOPSIM_REAL_API_KEY=sk-... go test ./sdkmodel -run RealAPI -v
// (LOOPSIM_REAL_API_MODEL picks the model; default claude-haiku-4-5,
// LOOPSIM_REAL_API_URL the address).
func TestRealAPI(t *testing.T) {
	key := os.Getenv(RealAPIKeyEnv)
	if key == "" {
		t.Skip(RealAPIKeyEnv + " is not set: the real API is opt-in")
	}
	name := os.Getenv("LOOPSIM_REAL_API_MODEL")
	if name == "" {
		name = "claude-haiku-4-5"
	}
	model, err := sdkmodel.New(sdkmodel.Config{APIKey: key, BaseURL: os.Getenv("LOOPSIM_REAL_API_URL")})
	require.NoError(t, err)
	sdktest.RunRealConversation(t, model, name, 200_000)
}
