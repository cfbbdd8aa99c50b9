package properties

import (
	"fmt"

	"github.com/loopsim/loopsim/loop"
)

// Run is a finished run: everything the invariants read.
type Run struct {
	// Policy is the policy the run used; the bounds follow it.
	Policy loop.Policy
	// Initial is the starting history given to [loop.Run].
	Initial []loop.Message
	// Result is the run's result: trace, final state and history, Halted.
	Result *loop.Result

	// Models are the models the run could send to (Config.Primary and
	// Config.FallbackModel). escalated_cap checks the requests sent to the
	// models listed here; with none listed it has nothing to check.
	Models []loop.ModelInfo
	// ScriptSteps is how many requests the model's script can answer, when
	// that is finite; zero means unknown or unbounded (a step that repeats
	// forever). termination uses it to bound the iterations (see
	// [IterationBound]).
	ScriptSteps int
}

// Violation is one broken invariant.
type Violation struct {
	// Invariant is one of [InvariantNames].
	Invariant string
	// Event is the index into Result.Trace of the offending event, -1 if
	// none (a property of the final history, or a missing event).
	Event int
	// Detail says which counter, which bound and what was seen.
	Detail string
}

// Error formats the violation as "invariant at event N: detail".
func (v Violation) Error() string {
	if v.Event < 0 {
		return fmt.Sprintf("%s: %s", v.Invariant, v.Detail)
	}
	return fmt.Sprintf("%s at event %d: %s", v.Invariant, v.Event, v.Detail)
}

// invariant is one check: the violations of a run, in trace order.
type invariant struct {
	name  string
	check func(Run) []Violation
}

// invariants lists the checks in the order of [InvariantNames].
var invariants = []invariant{
	{"termination", checkTermination},
	{"one_reactive_compact", checkOneReactiveCompact},
	{"three_recoveries", checkThreeRecoveries},
	{"escalate_once", checkEscalateOnce},
	{"escalated_cap", checkEscalatedCap},
	{"no_double_drain", checkNoDoubleDrain},
	{"turns", checkTurns},
	{"paired_tools", checkPairedTools},
	{"no_hooks_after_errors", checkNoHooksAfterErrors},
	{"nothing_lost", checkNothingLost},
}

// InvariantNames lists the invariants [Check] runs, in a fixed order:
// termination, one_reactive_compact, three_recoveries, escalate_once,
// escalated_cap, no_double_drain, turns, paired_tools,
// no_hooks_after_errors, nothing_lost.
func InvariantNames() []string {
	out := make([]string, len(invariants))
	for i, inv := range invariants {
		out[i] = inv.name
	}
	return out
}

// Check runs every invariant over r and returns the violations, in the
// order of [InvariantNames] (and in trace order within one invariant). A
// run without a Result is one violation of termination.
func Check(r Run) []Violation {
	if r.Result == nil {
		return []Violation{{Invariant: "termination", Event: -1, Detail: "no result: the run did not return"}}
	}
	var out []Violation
	for _, inv := range invariants {
		out = append(out, inv.check(r)...)
	}
	return out
}

// CheckOne runs the invariant named name over r. It returns an error if
// no invariant has that name.
func CheckOne(name string, r Run) ([]Violation, error) {
	if r.Result == nil {
		return nil, fmt.Errorf("properties: check %s: run has no result", name)
	}
	for _, inv := range invariants {
		if inv.name == name {
			return inv.check(r), nil
		}
	}
	return nil, fmt.Errorf("properties: no invariant named %q", name)
}
