package chat_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/sdkmodel/chat"
	"github.com/loopsim/loopsim/sdkmodel/sdktest"
)

// RealAPIKeyEnv names the key that opts TestRealAPI in. It is not
// OPENAI_API_KEY, so that a key in a developer's or CI's environment
// never sends a request by accident.
const RealAPIKeyEnv = "LOOPSIM_REAL_OPENAI_KEY"

// The loop runs one short conversation against the real API (or any
// server that speaks Chat Completions). Opt-in, never in CI:
// LOOPSIM_REAL_OPENAI_KEY=sk-... go test ./sdkmodel/chat -run RealAPI -v
// (LOOPSIM_REAL_OPENAI_MODEL picks the model, default gpt-4.1-mini;
// LOOPSIM_REAL_OPENAI_URL the address, /v1 included).
func TestRealAPI(t *testing.T) {
	key := os.Getenv(RealAPIKeyEnv)
	if key == "" {
		t.Skip(RealAPIKeyEnv + " is not set: the real API is opt-in")
	}
	name := os.Getenv("LOOPSIM_REAL_OPENAI_MODEL")
	if name == "" {
		name = "gpt-4.1-mini"
	}
	model, err := chat.New(chat.Config{APIKey: key, BaseURL: os.Getenv("LOOPSIM_REAL_OPENAI_URL")})
	require.NoError(t, err)
	sdktest.RunRealConversation(t, model, name, 128_000)
}
