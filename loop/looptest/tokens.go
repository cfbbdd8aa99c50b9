package looptest

import (
	"fmt"

	"github.com/loopsim/loopsim/loop"
)

// CheckTokenCounter checks a [loop.TokenCounter] on the empty history and
// conversations of several sizes. It checks that Count:
//
//   - is never negative;
//   - gives the same count twice for the same messages;
//   - does not decrease when a user message is appended;
//   - does not modify its input, and does not panic.
func CheckTokenCounter(c loop.TokenCounter) error {
	r := &report{check: "CheckTokenCounter"}
	for _, n := range []int{-1, 0, 1, 3, 8} {
		var msgs []loop.Message
		if n >= 0 {
			msgs = conversation(n)
		}
		what := fmt.Sprintf("%d messages", len(msgs))
		clone := cloneMessages(msgs)
		count := func(msgs []loop.Message) (int, bool) {
			res := call(func() int { return c.Count(msgs) })
			switch {
			case !res.returned:
				r.errorf("%s: Count did not return within %v", what, timeout)
			case res.hasPanic:
				r.errorf("%s: Count panicked: %v", what, res.panicked)
			default:
				return res.val, true
			}
			return 0, false
		}
		a, ok1 := count(msgs)
		b, ok2 := count(msgs)
		if !ok1 || !ok2 {
			continue
		}
		unmodified(r, what+": Count", msgs, clone)
		if a < 0 {
			r.errorf("%s: count %d is negative", what, a)
		}
		if a != b {
			r.errorf("%s: counted %d, then %d", what, a, b)
		}
		more := append(cloneMessages(msgs), loop.Message{ID: "appended", Role: loop.RoleUser, Tokens: 123,
			Blocks: []loop.Block{{Type: loop.BlockText, Text: "one more thing"}}})
		if after, ok := count(more); ok && after < a {
			r.errorf("%s: appending a 123-token user message lowered the count from %d to %d", what, a, after)
		}
	}
	return r.err()
}
