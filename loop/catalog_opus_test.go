package loop_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// The released agent's default model, as observed: a 1M window, 128,000
// tokens of output, thresholds enforced.
func TestCatalogHasTheDefaultModel(t *testing.T) {
	m, err := loop.LookupModel("claude-opus-5-5")
	require.NoError(t, err)
	assert.Equal(t, loop.KnownModel{ModelInfo: loop.ModelInfo{Name: "claude-opus-5-5", ContextWindow: 1_000_000, MaxOutputTokens: 128_000}}, m)
	cc := loop.ClaudeCode()
	assert.Equal(t, 128_000, cc.MaxTokens(m.ModelInfo))
	assert.Equal(t, 967_000, cc.Limits(m.ModelInfo).AutoCompactThreshold, "PROFILE §3: 967,000 for a 1M window")
}
