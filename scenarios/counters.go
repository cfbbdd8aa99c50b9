package scenarios

import (
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// Counter is one total over a finished run that a scenario can expect.
type Counter struct {
	// Name is how expect.counters spells it.
	Name string
	// Doc says what it counts.
	Doc string
	// Of computes it.
	Of func(*loop.Result) int
	// OnWire computes it from the fake server's records of a foreign
	// agent's requests, for a counter the wire shows; nil for one it does
	// not (turns, transitions, tool results: the agent's own state).
	OnWire func([]wire.Record) int
}

// Counters lists every counter, in the order diffs show them.
var Counters = []Counter{
	{"turns", "the final turn count (starts at 1)", func(r *loop.Result) int { return r.State.TurnCount }, nil},
	{"iterations", "loop iterations", func(r *loop.Result) int { return r.Stats.Iterations }, nil},
	{"requests", "requests sent, main and compaction, every attempt", func(r *loop.Result) int { return r.Stats.Requests }, wireRequests},
	{"compact_requests", "requests sent by compactions", countRequests(loop.PurposeCompact), wireCompactRequests},
	{"reactive_compacts", "reactive_compact_retry transitions", countTransitions(loop.ReactiveCompactRetry), nil},
	{"auto_compacts", "auto-compactions that succeeded", countCompactions(loop.TriggerAuto, true), nil},
	{"failed_compactions", "compactions, auto or reactive, that ran and failed", countFailedCompactions, nil},
	{"recovery_nudges", "max_output_tokens_recovery transitions", countTransitions(loop.MaxOutputTokensRecovery), nil},
	{"escalations", "max_output_tokens_escalate transitions", countTransitions(loop.MaxOutputTokensEscalate), nil},
	{"stop_hook_blocks", "stop-hook runs that blocked", countHookOutcome(loop.HookBlock), nil},
	{"retries", "requests the retry layer sent again", countKind(loop.KindRetry), wireRetries},
	{"fallbacks", "switches to the fallback model", countKind(loop.KindFallback), nil},
	{"tool_results", "tool_result blocks added, real and synthetic", countKind(loop.KindToolResult), nil},
	{"input_errors", "tool_results for a tool_use whose input is not valid JSON (the tool did not run)", countInputErrors, nil},
	{"synthetic_tool_results", "tool_results the loop made up (interrupted, fallback, model error)", countSyntheticResults, nil},
	{"output_tokens", "output tokens of successful responses", func(r *loop.Result) int { return r.Stats.OutputTokens }, nil},
	{"discarded_output_tokens", "output tokens of replies the loop dropped", func(r *loop.Result) int { return r.Stats.DiscardedOutputTokens }, nil},
	{"largest_max_tokens", "the largest max_tokens of any request", largestMaxTokens, wireLargestMaxTokens},
	{"peak_tokens", "the largest request input", func(r *loop.Result) int { return r.Stats.PeakTokens }, nil},
}

// CountersOnWire lists the names of the counters the wire shows, in table
// order: those `simulate agent` compares for a foreign agent.
func CountersOnWire() []string {
	var out []string
	for _, c := range Counters {
		if c.OnWire != nil {
			out = append(out, c.Name)
		}
	}
	return out
}

// wireRequests counts every request the server received.
func wireRequests(recs []wire.Record) int { return len(recs) }

// wireCompactRequests counts the compaction requests (wire.PurposeOf).
func wireCompactRequests(recs []wire.Record) int {
	n := 0
	for _, r := range recs {
		if r.Purpose == loop.PurposeCompact {
			n++
		}
	}
	return n
}

// wireRetries counts the requests that are a retry of the one before
// (wire.Attempts: the same messages again after no answer).
func wireRetries(recs []wire.Record) int {
	n := 0
	for _, a := range wire.Attempts(recs) {
		if a > 1 {
			n++
		}
	}
	return n
}

// wireLargestMaxTokens is the largest max_tokens any request asked for.
func wireLargestMaxTokens(recs []wire.Record) int {
	n := 0
	for _, r := range recs {
		n = max(n, r.MaxTokens)
	}
	return n
}

// counter returns the counter with that name.
func counter(name string) (Counter, bool) {
	for _, c := range Counters {
		if c.Name == name {
			return c, true
		}
	}
	return Counter{}, false
}

func counterNames() []string {
	out := make([]string, len(Counters))
	for i, c := range Counters {
		out[i] = c.Name
	}
	return out
}

// count returns a counter of the events for which match holds.
func count(match func(loop.Event) bool) func(*loop.Result) int {
	return func(r *loop.Result) int {
		n := 0
		for _, e := range r.Trace {
			if match(e) {
				n++
			}
		}
		return n
	}
}

// countInputErrors counts the tool results given for unreadable input.
func countInputErrors(r *loop.Result) int {
	return count(func(e loop.Event) bool {
		x, ok := e.(loop.ToolResultEvent)
		return ok && x.InputError
	})(r)
}

func countKind(k loop.EventKind) func(*loop.Result) int {
	return count(func(e loop.Event) bool { return e.EventKind() == k })
}

func countTransitions(t loop.Transition) func(*loop.Result) int {
	return count(func(e loop.Event) bool {
		x, ok := e.(loop.TransitionEvent)
		return ok && x.Transition == t
	})
}

func countRequests(p loop.Purpose) func(*loop.Result) int {
	return count(func(e loop.Event) bool {
		x, ok := e.(loop.RequestEvent)
		return ok && x.Purpose == p
	})
}

func countCompactions(t loop.CompactTrigger, ok bool) func(*loop.Result) int {
	return count(func(e loop.Event) bool {
		x, is := e.(loop.Compaction)
		return is && x.Trigger == t && x.OK == ok && x.Skipped == ""
	})
}

var countFailedCompactions = count(func(e loop.Event) bool {
	x, ok := e.(loop.Compaction)
	return ok && !x.OK && x.Skipped == ""
})

func countHookOutcome(o loop.HookOutcome) func(*loop.Result) int {
	return count(func(e loop.Event) bool {
		x, ok := e.(loop.StopHook)
		return ok && x.Outcome == o
	})
}

var countSyntheticResults = count(func(e loop.Event) bool {
	x, ok := e.(loop.ToolResultEvent)
	return ok && x.Synthetic
})

func largestMaxTokens(r *loop.Result) int {
	n := 0
	for _, q := range r.Trace.Requests() {
		n = max(n, q.MaxTokens)
	}
	return n
}
