package loop_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

func TestCatalog(t *testing.T) {
	m, err := loop.LookupModel("claude-sonnet-4-5")
	require.NoError(t, err)
	assert.Equal(t, loop.KnownModel{ModelInfo: loop.ModelInfo{Name: "claude-sonnet-4-5", ContextWindow: 200_000, MaxOutputTokens: 32_000}, ReactiveOnly: true}, m)
	_, err = loop.LookupModel("gpt")
	assert.ErrorContains(t, err, `unknown model "gpt" (known: claude-opus-5-5, claude-sonnet-5-5, claude-sonnet-4-5, claude-haiku-4-5, claude-3-5-haiku)`)

	cc := loop.ClaudeCode()
	seen := map[string]bool{}
	for _, k := range loop.Catalog {
		assert.False(t, seen[k.Name], "%s listed twice", k.Name)
		seen[k.Name] = true
		assert.Positive(t, k.ContextWindow, k.Name)
		assert.Positive(t, k.MaxOutputTokens, k.Name)
		assert.Equal(t, k.ReactiveOnly, slices.Contains(cc.ReactiveOnlyModels, k.Name),
			"%s: the claude-code profile's reactive_only_models follow the catalog", k.Name)
		// docs/profile-claude-code.md §1: every main request asks for the model's own output maximum.
		assert.Equal(t, k.MaxOutputTokens, cc.MaxTokens(k.ModelInfo), k.Name)
	}
	assert.Empty(t, loop.Seed().ReactiveOnlyModels, "the seed has no reactive-only mode")
}
