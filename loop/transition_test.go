package loop_test

import (
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
)

// Valid accepts exactly the listed transitions and terminals.
func TestTransitionsAndTerminalsValid(t *testing.T) {
	for _, tr := range loop.Transitions {
		assert.True(t, tr.Valid(), "transition %s", tr)
	}
	for _, tr := range []loop.Transition{"", "next-turn", "completed"} {
		assert.False(t, tr.Valid(), "transition %q", tr)
	}
	for _, term := range loop.Terminals {
		assert.True(t, term.Valid(), "terminal %s", term)
	}
	for _, term := range []loop.Terminal{"", "next_turn", "Completed"} {
		assert.False(t, term.Valid(), "terminal %q", term)
	}
}
