package properties

import (
	"fmt"
	"strconv"

	"github.com/loopsim/loopsim/loop"
)

// checkOneReactiveCompact: at most Policy.MaxReactiveCompactsInRow
// reactive_compact_retry between two resets of hasAttemptedReactiveCompact
// (next_turn, token_budget_continuation).
func checkOneReactiveCompact(r Run) []Violation {
	out := stretchCounter{
		name:   "one_reactive_compact",
		count:  loop.ReactiveCompactRetry,
		resets: []loop.Transition{loop.NextTurn, loop.TokenBudgetContinuation},
		bound:  r.Policy.MaxReactiveCompactsInRow,
		field:  "max_reactive_compacts_in_row",
	}.check(r.Result.Trace)
	return append(out, checkReactiveFlag(r)...)
}

// checkReactiveFlag reads hasAttemptedReactiveCompact from the state
// records: a reactive_compact_retry leaves it set, the resets clear it,
// other transitions keep it, and under a one-shot policy no reactive
// compaction runs while it is set. A flag the loop failed to set (or
// reset) shows here even when a count kept the loop's behaviour right.
func checkReactiveFlag(r Run) []Violation {
	var out []Violation
	flag := false
	var last loop.Transition
	for i, e := range r.Result.Trace {
		switch x := e.(type) {
		case loop.TransitionEvent:
			last = x.Transition
			if x.Transition == loop.ReactiveCompactRetry && flag && r.Policy.MaxReactiveCompactsInRow == 1 {
				out = append(out, Violation{Invariant: "one_reactive_compact", Event: i,
					Detail: "reactive_compact_retry while hasAttemptedReactiveCompact was already set (max_reactive_compacts_in_row 1)"})
			}
		case loop.StateRecord:
			want := flag
			switch last {
			case loop.ReactiveCompactRetry:
				want = true
			case loop.NextTurn, loop.TokenBudgetContinuation:
				want = false
			}
			if x.HasAttemptedReactiveCompact != want {
				out = append(out, Violation{Invariant: "one_reactive_compact", Event: i,
					Detail: fmt.Sprintf("hasAttemptedReactiveCompact is %t after %s, want %t", x.HasAttemptedReactiveCompact, transitionName(last), want)})
			}
			flag, last = x.HasAttemptedReactiveCompact, ""
		}
	}
	return out
}

func transitionName(t loop.Transition) string {
	if t == "" {
		return "an iteration that ended"
	}
	return string(t)
}

// checkThreeRecoveries: at most Policy.MaxOutputRecoveries
// max_output_tokens_recovery between two resets of the count (next_turn,
// stop_hook_blocking, token_budget_continuation).
func checkThreeRecoveries(r Run) []Violation {
	return stretchCounter{
		name:   "three_recoveries",
		count:  loop.MaxOutputTokensRecovery,
		resets: []loop.Transition{loop.NextTurn, loop.StopHookBlocking, loop.TokenBudgetContinuation},
		bound:  r.Policy.MaxOutputRecoveries,
		field:  "max_output_recoveries",
	}.check(r.Result.Trace)
}

// checkEscalateOnce: at most one max_output_tokens_escalate per stretch
// between two next_turn transitions: the intent of docs/spec.md §5, whatever the
// policy (the seed breaks it; Policy.EscalateOncePerStretch keeps it).
func checkEscalateOnce(r Run) []Violation {
	return stretchCounter{
		name:   "escalate_once",
		count:  loop.MaxOutputTokensEscalate,
		resets: []loop.Transition{loop.NextTurn},
		bound:  1,
		field:  "once per stretch (docs/spec.md §2.5.3)",
	}.check(r.Result.Trace)
}

// checkEscalatedCap: no request asks a model of Run.Models for more
// output than the model's maximum.
func checkEscalatedCap(r Run) []Violation {
	var out []Violation
	for i, e := range r.Result.Trace {
		req, ok := e.(loop.RequestEvent)
		if !ok {
			continue
		}
		for _, m := range r.Models {
			if m.Name == req.Model && req.MaxTokens > m.MaxOutputTokens {
				out = append(out, Violation{Invariant: "escalated_cap", Event: i,
					Detail: "request to " + m.Name + " has max_tokens " + itoa(req.MaxTokens) +
						" above the model's max output " + itoa(m.MaxOutputTokens)})
				break
			}
		}
	}
	return out
}

// checkNoDoubleDrain: never two collapse_drain_retry in a row.
func checkNoDoubleDrain(r Run) []Violation {
	var out []Violation
	prev := loop.Transition("")
	for i, e := range r.Result.Trace {
		x, ok := e.(loop.TransitionEvent)
		if !ok {
			continue
		}
		if x.Transition == loop.CollapseDrainRetry && prev == loop.CollapseDrainRetry {
			out = append(out, Violation{Invariant: "no_double_drain", Event: i,
				Detail: "collapse_drain_retry directly after another collapse_drain_retry"})
		}
		prev = x.Transition
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
