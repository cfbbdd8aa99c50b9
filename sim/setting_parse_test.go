package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// Every path a -set takes reads a value by the same rule: a policy field
// (loop.Policy.With), a workload parameter (fakemodel.Workload.With) and
// the setting's own fields alike accept "20_000" and refuse "20__000".
// (loop.Policy.With once refused the first while Workload.With took it.)
func TestEveryPathParsesAnIntegerAlike(t *testing.T) {
	p, err := loop.Seed().With("auto_compact_buffer", "20_000")
	require.NoError(t, err, "loop.Policy.With")
	assert.Equal(t, 20_000, p.AutoCompactBuffer)
	w, err := fakemodel.DefaultWorkload().With("start_context.min", "20_000")
	require.NoError(t, err, "fakemodel.Workload.With")
	assert.Equal(t, 20_000, w.StartContext.Min)

	s := mustSetting(t, "seed", "auto_compact_buffer=20_000", "workload.start_context.min=20_000",
		"model.context_window=20_000", "fallback_model.context_window=20_000", "iteration_limit=20_000")
	assert.Equal(t, 20_000, s.Policy.AutoCompactBuffer)
	assert.Equal(t, 20_000, s.Workload.StartContext.Min)
	assert.Equal(t, 20_000, s.Model.ContextWindow)
	assert.Equal(t, 20_000, s.FallbackModel.ContextWindow)
	assert.Equal(t, 20_000, s.IterationLimit)

	for _, name := range []string{"auto_compact_buffer", "workload.start_context.min", "model.context_window", "fallback_model.context_window", "iteration_limit"} {
		_, err := s.With(name, "20__000")
		assert.ErrorContains(t, err, `"20__000" is not an integer`, name)
	}
}

// Booleans read alike too: the policy's switches (fallback is the
// policy's own, no longer shadowed by the setting) and the workload's.
func TestEveryPathParsesABooleanAlike(t *testing.T) {
	s := mustSetting(t, "codex", "fallback=on", "auto_compact=off", "workload.swarm=On")
	assert.True(t, s.Policy.Fallback)
	assert.Empty(t, s.FallbackModel.Name, "the switch makes no fallback model")
	assert.False(t, s.Policy.AutoCompact)
	assert.True(t, s.Workload.Swarm)
	for _, name := range []string{"fallback", "auto_compact", "workload.swarm"} {
		_, err := s.With(name, "perhaps")
		assert.ErrorContains(t, err, `"perhaps" is not true or false`, name)
	}
}
