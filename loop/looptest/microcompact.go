package looptest

import (
	"fmt"
	"reflect"

	"github.com/loopsim/loopsim/loop"
)

// CheckMicrocompactor checks a [loop.Microcompactor] on conversations of
// several sizes (one with a result already cleared) and several
// KeepRecent values. It checks that Microcompact:
//
//   - never removes, adds or reorders messages or blocks, and changes
//     nothing but the content and size of tool_result blocks (a changed
//     message may have its Tokens reset for re-estimation);
//   - keeps the newest KeepRecent tool results intact;
//   - reports as Cleared the number of tool results it changed;
//   - does not modify its input, and does not panic.
func CheckMicrocompactor(m loop.Microcompactor) error {
	r := &report{check: "CheckMicrocompactor"}
	for _, n := range []int{0, 1, 3, 8, 15} {
		for _, keep := range []int{0, 1, 2, 5, 100} {
			checkMicrocompact(r, m, loop.MicrocompactInput{Messages: conversation(n), KeepRecent: keep})
		}
	}
	msgs := conversation(6)
	msgs[2].Blocks = append([]loop.Block(nil), msgs[2].Blocks...)
	msgs[2].Blocks[0].Text = loop.ClearedToolResult
	checkMicrocompact(r, m, loop.MicrocompactInput{Messages: msgs, KeepRecent: 1})
	checkMicrocompact(r, m, loop.MicrocompactInput{KeepRecent: 1})
	return r.err()
}

func checkMicrocompact(r *report, mc loop.Microcompactor, in loop.MicrocompactInput) {
	what := fmt.Sprintf("%d messages, keep %d", len(in.Messages), in.KeepRecent)
	clone := cloneMessages(in.Messages)
	res := call(func() loop.MicrocompactResult { return mc.Microcompact(in) })
	if !res.returned {
		r.errorf("%s: Microcompact did not return within %v", what, timeout)
		return
	}
	if res.hasPanic {
		r.errorf("%s: Microcompact panicked: %v", what, res.panicked)
		return
	}
	out := res.val
	unmodified(r, what+": Microcompact", in.Messages, clone)
	if len(out.Messages) != len(clone) {
		r.errorf("%s: output has %d messages, input %d: microcompact never removes or adds messages", what, len(out.Messages), len(clone))
		return
	}
	// tool results counted from the newest
	recent := 0
	changed := 0
	for i := len(clone) - 1; i >= 0; i-- {
		a, b := clone[i], out.Messages[i]
		if a.ID != b.ID || a.Role != b.Role || len(a.Blocks) != len(b.Blocks) {
			r.errorf("%s: message %d: %q (%s, %d blocks) became %q (%s, %d blocks)", what, i, a.ID, a.Role, len(a.Blocks), b.ID, b.Role, len(b.Blocks))
			continue
		}
		// everything but the blocks and the size stays
		a2, b2 := a, b
		a2.Blocks, b2.Blocks, a2.Tokens, b2.Tokens = nil, nil, 0, 0
		if !reflect.DeepEqual(a2, b2) {
			r.errorf("%s: message %q: fields other than blocks and tokens changed: %+v became %+v", what, a.ID, a, b)
		}
		for j := len(a.Blocks) - 1; j >= 0; j-- {
			x, y := a.Blocks[j], b.Blocks[j]
			if x.Type != loop.BlockToolResult {
				if !reflect.DeepEqual(x, y) {
					r.errorf("%s: message %q block %d (%s) changed; only tool results may", what, a.ID, j, x.Type)
				}
				continue
			}
			recent++
			if y.Type != x.Type || y.ToolUseID != x.ToolUseID || y.IsError != x.IsError {
				r.errorf("%s: message %q block %d: tool_result for %q became %s for %q", what, a.ID, j, x.ToolUseID, y.Type, y.ToolUseID)
			}
			if reflect.DeepEqual(x, y) {
				continue
			}
			changed++
			if recent <= in.KeepRecent {
				r.errorf("%s: tool result %q changed, one of the newest %d (KeepRecent)", what, x.ToolUseID, in.KeepRecent)
			}
		}
	}
	if out.Cleared != changed {
		r.errorf("%s: reported Cleared %d, but %d tool results changed", what, out.Cleared, changed)
	}
}
