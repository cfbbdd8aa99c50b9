package fakemodel

import (
	"math"
	"math/rand/v2"
)

// namedRate is one fault probability with its JSON name.
type namedRate struct {
	name string
	p    *float64
	// repeat marks a conditional probability (a burst, a hook blocking
	// again) rather than a rate.
	repeat bool
	// share marks the share of another fault's events that take a
	// form (a stream error after content): Swarm keeps it as given.
	share bool
}

// FaultRate is one of a [Faults]' probabilities with its JSON name.
type FaultRate struct {
	// Name is the field's JSON name (workload.faults.NAME).
	Name string
	// P is its probability.
	P float64
}

// Rates lists f's probabilities with their JSON names, in declaration
// order: every fault, so that a report or a tool need not list them again.
func (f Faults) Rates() []FaultRate {
	fields := f.fields()
	out := make([]FaultRate, len(fields))
	for i, x := range fields {
		out[i] = FaultRate{Name: x.name, P: *x.p}
	}
	return out
}

// fields lists f's probabilities in declaration order.
func (f *Faults) fields() []namedRate {
	return []namedRate{
		{"overloaded", &f.Overloaded, false, false},
		{"rate_limited", &f.RateLimited, false, false},
		{"server_error", &f.ServerError, false, false},
		{"connection", &f.Connection, false, false},
		{"stream_error", &f.StreamError, false, false},
		{"stream_error_after_content", &f.StreamErrorAfterContent, false, true},
		{"invalid_request", &f.InvalidRequest, false, false},
		{"persist", &f.Persist, true, false},
		{"media_too_large", &f.MediaTooLarge, false, false},
		{"malformed_tool_use", &f.MalformedToolUse, false, false},
		{"empty_reply", &f.EmptyReply, false, false},
		{"stop_hook_block", &f.StopHookBlock, false, false},
		{"stop_hook_repeat", &f.StopHookRepeat, true, false},
		{"stop_hook_prevent", &f.StopHookPrevent, false, false},
		{"tool_hook_stop", &f.ToolHookStop, false, false},
		{"abort", &f.Abort, false, false},
	}
}

// swarmFloor stands in for a rate of zero in [Faults.Swarm].
const swarmFloor = 0.001

// Swarm draws one episode's fault probabilities around f, as swarm
// testing does: each fault is switched off with probability 1/2, else its
// rate is drawn log-uniformly between a tenth of and ten times its rate
// in f (0.1% for a rate of zero), capped at 1. The repeat probabilities
// (persist, stop_hook_repeat) are drawn uniformly from [0, 1]; the
// shares (stream_error_after_content) are kept as given. Episodes
// thus meet rare combinations (an outage, a hook that always blocks) that
// a fixed mix would almost never produce.
func (f Faults) Swarm(r *rand.Rand) Faults {
	out := f
	for _, x := range out.fields() {
		if x.share {
			continue
		}
		if x.repeat {
			*x.p = r.Float64()
			continue
		}
		if r.IntN(2) == 0 {
			*x.p = 0
			continue
		}
		base := max(*x.p, swarmFloor)
		*x.p = min(base*math.Pow(10, 2*r.Float64()-1), 1)
	}
	return out
}
