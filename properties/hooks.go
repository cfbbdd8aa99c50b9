package properties

import (
	"fmt"

	"github.com/loopsim/loopsim/loop"
)

// checkNoHooksAfterErrors: no stop_hook event in an iteration after its
// main request finally failed, after a withheld prompt-too-long or media
// error, or after an error was emitted (docs/spec.md §2.5.2, §2.5.5); and a run
// that completes after an emitted API error ran the stop-failure hooks
// (docs/spec.md §2.5.5) after the error, while a stop_failure_hook event always
// follows an emitted error.
//
// It reads the trace once, and words a cause only for a violation.
func checkNoHooksAfterErrors(r Run) []Violation {
	t := r.Result.Trace
	var out []Violation
	// events before the first iteration_start belong to no iteration
	inIteration := false
	var cause hookCause
	emitted, failureHooks := -1, -1
	for i, e := range t {
		if _, ok := e.(loop.IterationStart); ok {
			inIteration = true
			cause, emitted, failureHooks = hookCause{}, -1, -1
		}
		if !inIteration {
			continue
		}
		switch x := e.(type) {
		case loop.RequestEvent:
			if x.Purpose == loop.PurposeMain {
				cause = hookCause{}
			}
		case loop.RequestFailed:
			if x.Purpose == loop.PurposeMain {
				cause = hookCause{what: causeFailed, kind: string(x.Kind), at: i}
			}
		case loop.Withheld:
			if x.Kind == loop.WithheldPromptTooLong || x.Kind == loop.WithheldMedia {
				cause = hookCause{what: causeWithheld, kind: string(x.Kind), at: i}
			}
		case loop.ErrorEmitted:
			cause = hookCause{what: causeEmitted, at: i}
			emitted = i
		case loop.StopFailureHook:
			failureHooks = i
			if emitted < 0 {
				out = append(out, Violation{Invariant: "no_hooks_after_errors", Event: i,
					Detail: "the stop-failure hooks ran without an emitted API error before them"})
			}
		case loop.TerminalEvent:
			if x.Terminal == loop.Completed && emitted >= 0 {
				if failureHooks < emitted {
					out = append(out, Violation{Invariant: "no_hooks_after_errors", Event: i,
						Detail: fmt.Sprintf("the run completed after the API error emitted at event %d without running the stop-failure hooks", emitted)})
				}
			}
		case loop.StopHook:
			if cause.what != causeNone {
				out = append(out, Violation{Invariant: "no_hooks_after_errors", Event: i,
					Detail: fmt.Sprintf("stop hooks ran (%s) after %s", x.Outcome, cause)})
			}
		}
	}
	return out
}

// hookCause is why stop hooks may not run in the rest of an iteration:
// what happened, the error's kind, and the event's index.
type hookCause struct {
	what causeKind
	kind string
	at   int
}

type causeKind int

const (
	causeNone causeKind = iota
	causeFailed
	causeWithheld
	causeEmitted
)

// String words the cause for a violation's detail.
func (c hookCause) String() string {
	switch c.what {
	case causeFailed:
		return fmt.Sprintf("the main request failed (%s) at event %d", c.kind, c.at)
	case causeWithheld:
		return fmt.Sprintf("a withheld %s error at event %d", c.kind, c.at)
	default:
		return fmt.Sprintf("an error emitted at event %d", c.at)
	}
}
