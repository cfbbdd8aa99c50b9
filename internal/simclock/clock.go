// Package simclock gives the events of a loop trace a simulated time. A
// simulated run has no wall clock, so the exporters (the OpenTelemetry
// spans of otelexport/, the Perfetto timeline of timeline/) derive one
// from the trace alone, by one rule, so the same trace always gives the
// same times:
//
//   - every event takes one Tick (1 ms) after the one before it;
//   - a retry's simulated delay (loop.Retry.DelayMS) passes between the
//     retry event and the event after it.
//
// Times are offsets from Epoch, a fixed instant; they order the events
// and show the retry back-off to scale, nothing more.
package simclock

import (
	"time"

	"github.com/loopsim/loopsim/loop"
)

// Epoch is the instant every simulated run starts at: 2026-01-01 00:00 UTC.
var Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// Tick is the simulated time one event takes.
const Tick = time.Millisecond

// Offsets returns the simulated time of each event of tr, as an offset
// from Epoch, and the end of the run (one Tick after the last event).
func Offsets(tr loop.Trace) (at []time.Duration, end time.Duration) {
	at = make([]time.Duration, len(tr))
	var now time.Duration
	for i, e := range tr {
		at[i] = now
		now += Tick
		if r, ok := e.(loop.Retry); ok && r.DelayMS > 0 {
			now += time.Duration(r.DelayMS) * time.Millisecond
		}
	}
	return at, now
}
