package looptest

import (
	"context"
	"fmt"
	"reflect"

	"github.com/loopsim/loopsim/loop"
)

// CheckToolUseSummarizer checks a [loop.ToolUseSummarizer]; newSummarizer
// must return a fresh instance each time. It summarises a cancelled
// batch, then a series of batches with one instance, and checks that:
//
//   - Summarize returns promptly with a cancelled context, and returns
//     promptly once the check cancels a call still running after a short
//     grace period;
//   - a success is not an empty summary;
//   - the calls and result messages are not modified.
//
// Errors and panics are failed summaries; they are not violations.
func CheckToolUseSummarizer(newSummarizer func() loop.ToolUseSummarizer) error {
	r := &report{check: "CheckToolUseSummarizer"}
	calls, results := batch(1)
	res := run(cancelledContext(), false, func(ctx context.Context) (string, error) {
		return newSummarizer().Summarize(ctx, calls, results)
	})
	if !res.returned {
		r.errorf("Summarize with a cancelled context did not return within %v", timeout)
	}
	s := newSummarizer()
	for _, n := range []int{1, 2, 3, 5, 6, 7} { // batches with tool calls
		calls, results := batch(n)
		callsClone := append([]loop.ToolCall(nil), calls...)
		clone := cloneMessages(results)
		res := run(context.Background(), true, func(ctx context.Context) (string, error) {
			return s.Summarize(ctx, calls, results)
		})
		what := fmt.Sprintf("batch %d", n)
		if !res.returned {
			r.errorf("%s: Summarize did not return within %v of its context being cancelled", what, timeout)
			return r.err()
		}
		unmodified(r, what+": Summarize", results, clone)
		if !reflect.DeepEqual(calls, callsClone) {
			r.errorf("%s: Summarize modified its calls", what)
		}
		if !res.hasPanic && res.err == nil && res.val == "" {
			r.errorf("%s: Summarize returned an empty summary and no error", what)
		}
	}
	return r.err()
}

// batch returns the n-th exchange of a conversation as a tool batch.
func batch(n int) ([]loop.ToolCall, []loop.Message) {
	msgs := conversation(n)
	var calls []loop.ToolCall
	for i, b := range msgs[len(msgs)-2].ToolUses() {
		calls = append(calls, loop.ToolCall{ID: b.ID, Name: b.Name, Input: b.Input, Index: i})
	}
	return calls, msgs[len(msgs)-1:]
}
