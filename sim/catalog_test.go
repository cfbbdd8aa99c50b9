package sim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sim"
)

func TestSettingSelectsACatalogModelByName(t *testing.T) {
	s, err := sim.NewSetting("claude-code")
	require.NoError(t, err)
	s, err = s.With("model", "claude-3-5-haiku")
	require.NoError(t, err)
	assert.Equal(t, loop.ModelInfo{Name: "claude-3-5-haiku", ContextWindow: 200_000, MaxOutputTokens: 8_192}, s.Model)
	assert.Equal(t, "-profile claude-code -set model=claude-3-5-haiku", s.ReplayFlags())
	_, err = s.With("model", "nope")
	assert.ErrorContains(t, err, `unknown model "nope"`)
}
