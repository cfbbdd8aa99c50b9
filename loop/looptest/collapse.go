package looptest

import (
	"fmt"
	"reflect"

	"github.com/loopsim/loopsim/loop"
)

// CheckCollapser checks a [loop.Collapser] on conversations of several
// sizes and KeepRecent values: it stages (count over StageAt, under
// CommitAt), commits (count over both), drains, and calls both methods
// under every threshold with nothing staged. It checks that Collapse and
// Drain:
//
//   - report as Removed exactly the input messages missing from the
//     output (nothing leaves unrecorded), keep the others unchanged and in
//     order, and never fold the newest KeepRecent messages;
//   - count a commit for every removal (Committed > 0 when anything was
//     removed, and removals only when something was committed);
//   - remove nothing under CommitAt, and change nothing under StageAt with
//     nothing staged;
//   - leave every tool_use in the output with the tool_result it had, and
//     every tool_result with its tool_use;
//   - stage spans that name messages of the output, in order, older than
//     the newest KeepRecent; Drain leaves nothing staged;
//   - do not modify their input (messages or staged spans), and do not
//     panic.
func CheckCollapser(c loop.Collapser) error {
	r := &report{check: "CheckCollapser"}
	for _, n := range []int{1, 2, 4, 8, 16} {
		for _, keep := range []int{1, 2, 4} {
			msgs := conversation(n)
			total := loop.SumTokens(msgs)
			stage := checkCollapse(r, "stage", c.Collapse, loop.CollapseInput{Messages: msgs, Tokens: total,
				StageAt: 1, CommitAt: total + 1, KeepRecent: keep})
			checkCollapse(r, "commit", c.Collapse, loop.CollapseInput{Messages: msgs, Tokens: total,
				Staged: stage.Staged, StageAt: 1, CommitAt: 1, KeepRecent: keep})
			checkCollapse(r, "drain", c.Drain, loop.CollapseInput{Messages: msgs, Tokens: total,
				Staged: stage.Staged, StageAt: total + 1, CommitAt: total + 1, KeepRecent: keep})
			idle := loop.CollapseInput{Messages: msgs, Tokens: total, StageAt: total + 1, CommitAt: total + 1, KeepRecent: keep}
			for _, op := range []struct {
				name string
				f    func(loop.CollapseInput) loop.CollapseResult
			}{{"idle collapse", c.Collapse}, {"idle drain", c.Drain}} {
				res := checkCollapse(r, op.name, op.f, idle)
				if !reflect.DeepEqual(res.Messages, msgs) || len(res.Staged) > 0 || res.Committed != 0 {
					r.errorf("%s (%d messages, keep %d): changed something with nothing staged, under every threshold: committed %d, staged %v, %d messages out",
						op.name, len(msgs), keep, res.Committed, res.Staged, len(res.Messages))
				}
			}
		}
	}
	return r.err()
}

func checkCollapse(r *report, op string, f func(loop.CollapseInput) loop.CollapseResult, in loop.CollapseInput) loop.CollapseResult {
	what := fmt.Sprintf("%s (%d messages, %d tokens, stage at %d, commit at %d, %d staged, keep %d)",
		op, len(in.Messages), in.Tokens, in.StageAt, in.CommitAt, len(in.Staged), in.KeepRecent)
	clone := cloneMessages(in.Messages)
	staged := append([]loop.Span(nil), in.Staged...)
	res := call(func() loop.CollapseResult { return f(in) })
	if !res.returned {
		r.errorf("%s: did not return within %v", what, timeout)
		return loop.CollapseResult{}
	}
	if res.hasPanic {
		r.errorf("%s: panicked: %v", what, res.panicked)
		return loop.CollapseResult{}
	}
	out := res.val
	unmodified(r, what, in.Messages, clone)
	if len(in.Staged) > 0 && !reflect.DeepEqual(in.Staged, staged) {
		r.errorf("%s: modified its input's staged spans: %v became %v", what, staged, in.Staged)
	}
	gone := checkRemoval(r, what, clone, out.Messages, out.Removed, in.KeepRecent)
	switch {
	case out.Committed < 0:
		r.errorf("%s: Committed %d is negative", what, out.Committed)
	case len(gone) > 0 && out.Committed == 0:
		r.errorf("%s: removed %d messages but reported no commit", what, len(gone))
	case len(gone) == 0 && out.Committed > 0:
		r.errorf("%s: reported %d commits but removed nothing", what, out.Committed)
	}
	if op != "drain" && op != "idle drain" && in.Tokens < in.CommitAt && len(gone) > 0 {
		r.errorf("%s: removed %d messages under CommitAt", what, len(gone))
	}
	if (op == "drain" || op == "idle drain") && len(out.Staged) > 0 {
		r.errorf("%s: left %d spans staged; a drain commits everything", what, len(out.Staged))
	}
	checkPairs(r, what, clone, out.Messages)
	index := map[string]int{}
	for i, m := range out.Messages {
		if m.ID != "" {
			index[m.ID] = i
		}
	}
	for _, s := range out.Staged {
		first, ok1 := index[s.First]
		last, ok2 := index[s.Last]
		switch {
		case s.First == "" || s.Last == "":
			r.errorf("%s: staged span %q..%q names a message with no ID (a new summary?); the loop gives it an ID afterwards, so the span can never be found again", what, s.First, s.Last)
		case !ok1 || !ok2:
			r.errorf("%s: staged span %s..%s names a message not in the output", what, s.First, s.Last)
		case first > last:
			r.errorf("%s: staged span %s..%s runs backwards", what, s.First, s.Last)
		case last >= len(out.Messages)-in.KeepRecent:
			r.errorf("%s: staged span %s..%s reaches into the newest %d messages (KeepRecent)", what, s.First, s.Last, in.KeepRecent)
		}
	}
	return out
}
