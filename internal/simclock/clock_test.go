package simclock

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/loop"
)

func TestOffsetsTickPerEventAndRetryDelay(t *testing.T) {
	tr := loop.Trace{
		loop.IterationStart{Iteration: 1, Turn: 1},
		loop.RequestEvent{Attempt: 1},
		loop.RequestFailed{Kind: loop.KindOverloaded},
		loop.Retry{Attempt: 2, Reason: loop.KindOverloaded, DelayMS: 500},
		loop.RequestEvent{Attempt: 2},
	}
	at, end := Offsets(tr)
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{0, ms, 2 * ms, 3 * ms, 504 * ms}, at)
	assert.Equal(t, 505*ms, end)
}

func TestOffsetsEmptyTrace(t *testing.T) {
	at, end := Offsets(nil)
	assert.Empty(t, at)
	assert.Zero(t, end)
}
