package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDefaultHeldOut: the built-in workload's cross-validation is kept
// with its command, covers the calibration figures, and reaches the
// calibration rows of a setting on the built-in workload only.
func TestDefaultHeldOut(t *testing.T) {
	h, err := DefaultHeldOut()
	require.NoError(t, err)
	assert.Contains(t, h.Command, "simulate calibrate -cv")
	assert.True(t, h.Population)
	assert.GreaterOrEqual(t, len(h.Sources), 2)
	for _, f := range h.Figures {
		assert.LessOrEqual(t, f.Inside, f.Sources, f.Figure)
		assert.LessOrEqual(t, f.WithinTolerance, f.Sources, f.Figure)
	}
	_, ok := h.Figure("output per call, p90")
	assert.True(t, ok, "no held-out output p90")

	s, err := NewSetting("claude-code")
	require.NoError(t, err)
	got, why := HeldOutFor(s)
	require.NotNil(t, got, why)
	rows := []CalibrationRow{{Figure: "output per call, p90"}, {Figure: "no such figure"}}
	got.Attach(rows)
	require.NotNil(t, rows[0].HeldOut)
	assert.Nil(t, rows[1].HeldOut)
	assert.Contains(t, got.Sentence(), "figures of sources the fit never saw")

	faults, err := s.With("workload.faults.overloaded", "0.2")
	require.NoError(t, err)
	got, _ = HeldOutFor(faults)
	assert.NotNil(t, got, "the fault rates are not the fit's: the held-out figures still hold")
	other, err := s.With("workload.output.median", "900")
	require.NoError(t, err)
	got, why = HeldOutFor(other)
	assert.Nil(t, got)
	assert.Contains(t, why, "differ from the built-in workload's")
}
