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
func checkNoHooksAfterErrors(r Run) []Violation {
	t := r.Result.Trace
	var out []Violation
	for _, it := range iterations(t) {
		cause, emitted, failureHooks := "", -1, -1
		for i := it.start; i < it.end; i++ {
			switch x := t[i].(type) {
			case loop.RequestEvent:
				if x.Purpose == loop.PurposeMain {
					cause = ""
				}
			case loop.RequestFailed:
				if x.Purpose == loop.PurposeMain {
					cause = fmt.Sprintf("the main request failed (%s) at event %d", x.Kind, i)
				}
			case loop.Withheld:
				if x.Kind == loop.WithheldPromptTooLong || x.Kind == loop.WithheldMedia {
					cause = fmt.Sprintf("a withheld %s error at event %d", x.Kind, i)
				}
			case loop.ErrorEmitted:
				cause = fmt.Sprintf("an error emitted at event %d", i)
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
				if cause != "" {
					out = append(out, Violation{Invariant: "no_hooks_after_errors", Event: i,
						Detail: fmt.Sprintf("stop hooks ran (%s) after %s", x.Outcome, cause)})
				}
			}
		}
	}
	return out
}
