package looptest

import (
	"fmt"

	"github.com/loopsim/loopsim/loop"
)

// CheckSnipper checks a [loop.Snipper] on conversations of several sizes,
// with several thresholds (all positive, as the loop's are) and
// KeepRecent values. It checks that Snip:
//
//   - never drops any of the newest KeepRecent messages;
//   - drops nothing when the count is under the threshold;
//   - only drops messages: kept messages are unchanged and in order;
//   - reports as Removed exactly the messages missing from its output,
//     oldest first;
//   - frees between zero and the removed messages' total tokens;
//   - leaves no tool_use without the tool_result it had, and no
//     tool_result without its tool_use;
//   - does not modify its input, and does not panic.
func CheckSnipper(s loop.Snipper) error {
	r := &report{check: "CheckSnipper"}
	for _, n := range []int{0, 1, 2, 3, 6, 12} {
		for _, keep := range []int{0, 1, 2, 5, 100} {
			total := loop.SumTokens(conversation(n))
			for _, threshold := range []int{1, total / 2, total, total + 1} {
				msgs := conversation(n)
				in := loop.SnipInput{Messages: msgs, Tokens: total, Threshold: max(threshold, 1), KeepRecent: keep}
				checkSnip(r, s, in)
			}
		}
	}
	checkSnip(r, s, loop.SnipInput{Threshold: 1, KeepRecent: 1})
	return r.err()
}

func checkSnip(r *report, s loop.Snipper, in loop.SnipInput) {
	what := fmt.Sprintf("%d messages, %d tokens, threshold %d, keep %d", len(in.Messages), in.Tokens, in.Threshold, in.KeepRecent)
	clone := cloneMessages(in.Messages)
	res := call(func() loop.SnipResult { return s.Snip(in) })
	if !res.returned {
		r.errorf("%s: Snip did not return within %v", what, timeout)
		return
	}
	if res.hasPanic {
		r.errorf("%s: Snip panicked: %v", what, res.panicked)
		return
	}
	out := res.val
	unmodified(r, what+": Snip", in.Messages, clone)
	gone := checkRemoval(r, what, clone, out.Messages, out.Removed, in.KeepRecent)
	if in.Tokens < in.Threshold && len(gone) > 0 {
		r.errorf("%s: removed %d messages while under the threshold", what, len(gone))
	}
	if out.TokensFreed < 0 || out.TokensFreed > loop.SumTokens(gone) {
		r.errorf("%s: TokensFreed %d is outside [0, %d], the removed messages' total", what, out.TokensFreed, loop.SumTokens(gone))
	}
	checkPairs(r, what, clone, out.Messages)
}
