package sdktest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// RunRealConversation runs the loop's claude-code profile through model
// over one short conversation ("Reply with the single word: ready") and
// checks it completes, logging each response's stop reason and usage:
// the opt-in real-API test each SDK model's package has. name is the
// model asked for, window its context window.
func RunRealConversation(t *testing.T, model loop.Model, name string, window int) {
	t.Helper()
	cfg := loop.Config{Policy: loop.ClaudeCode(), Model: model,
		Primary: loop.ModelInfo{Name: name, ContextWindow: window, MaxOutputTokens: 1_000}}
	res, err := loop.Run(t.Context(), cfg, []loop.Message{loop.UserText("Reply with the single word: ready")})
	require.NoError(t, err)
	assert.Equal(t, loop.Completed, res.Terminal)
	for _, e := range res.Trace {
		if r, ok := e.(loop.ResponseEvent); ok {
			t.Logf("response: stop %s, usage %+v", r.StopReason, r.Usage)
		}
	}
}
