package looptest

import (
	"context"
	"fmt"

	"github.com/loopsim/loopsim/loop"
)

// stopHookCalls is how many times CheckStopHooks calls one instance.
const stopHookCalls = 12

// CheckStopHooks checks a [loop.StopHooks]; newHooks must return a fresh
// instance each time. It calls the hooks with a cancelled context, then a
// series of times as the loop would (StopHookActive set after a block),
// and checks that:
//
//   - RunStopHooks returns promptly with a cancelled context, and returns
//     promptly once the check cancels a call still running after a short
//     grace period;
//   - no blocking error is empty;
//   - the input's messages are not modified.
//
// Errors and panics are hook failures the loop records; they are not
// violations.
func CheckStopHooks(newHooks func() loop.StopHooks) error {
	r := &report{check: "CheckStopHooks"}
	msgs := conversation(3)
	res := run(cancelledContext(), false, func(ctx context.Context) (loop.StopHookResult, error) {
		return newHooks().RunStopHooks(ctx, loop.StopHookInput{Messages: msgs, Turn: 1})
	})
	if !res.returned {
		r.errorf("RunStopHooks with a cancelled context did not return within %v", timeout)
	}

	hooks := newHooks()
	active := false
	for i := 1; i <= stopHookCalls; i++ {
		msgs := conversation(i)
		clone := cloneMessages(msgs)
		in := loop.StopHookInput{Messages: msgs, StopHookActive: active, Turn: i}
		res := run(context.Background(), true, func(ctx context.Context) (loop.StopHookResult, error) {
			return hooks.RunStopHooks(ctx, in)
		})
		what := fmt.Sprintf("call %d", i)
		if !res.returned {
			r.errorf("%s: RunStopHooks did not return within %v of its context being cancelled", what, timeout)
			return r.err()
		}
		unmodified(r, what+": RunStopHooks", msgs, clone)
		active = false
		if res.hasPanic || res.err != nil {
			continue
		}
		for j, e := range res.val.BlockingErrors {
			if e == "" {
				r.errorf("%s: blocking error %d is empty", what, j)
			}
		}
		active = len(res.val.BlockingErrors) > 0 && !res.val.PreventContinuation
	}
	return r.err()
}

// stopFailureCalls is how many times CheckStopFailureHooks calls one
// instance.
const stopFailureCalls = 6

// CheckStopFailureHooks checks a [loop.StopFailureHooks]; newHooks must
// return a fresh instance each time. It calls the hooks with a cancelled
// context, then a series of times as the loop would (each history ending
// in an API-error message), and checks that:
//
//   - RunStopFailureHooks returns promptly with a cancelled context, and
//     returns promptly once the check cancels a call still running after a
//     short grace period;
//   - the input's messages are not modified.
//
// Errors and panics are hook failures the loop records (the run still
// completes); they are not violations.
func CheckStopFailureHooks(newHooks func() loop.StopFailureHooks) error {
	r := &report{check: "CheckStopFailureHooks"}
	in := func(i int) loop.StopFailureInput {
		msgs := conversation(i)
		msgs = append(msgs, loop.Message{ID: fmt.Sprintf("err%d", i), Role: loop.RoleAssistant, APIError: true, Synthetic: true,
			Tokens: 10, Blocks: []loop.Block{{Type: loop.BlockText, Text: "500 server_error: internal server error"}}})
		return loop.StopFailureInput{Messages: msgs, Error: "500 server_error: internal server error", Turn: i}
	}
	res := run(cancelledContext(), false, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, newHooks().RunStopFailureHooks(ctx, in(1))
	})
	if !res.returned {
		r.errorf("RunStopFailureHooks with a cancelled context did not return within %v", timeout)
	}

	hooks := newHooks()
	for i := 1; i <= stopFailureCalls; i++ {
		input := in(i)
		clone := cloneMessages(input.Messages)
		res := run(context.Background(), true, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, hooks.RunStopFailureHooks(ctx, input)
		})
		what := fmt.Sprintf("call %d", i)
		if !res.returned {
			r.errorf("%s: RunStopFailureHooks did not return within %v of its context being cancelled", what, timeout)
			return r.err()
		}
		unmodified(r, what+": RunStopFailureHooks", input.Messages, clone)
	}
	return r.err()
}
