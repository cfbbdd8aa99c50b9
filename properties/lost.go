package properties

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loopsim/loopsim/loop"
)

// checkNothingLost: every message that leaves the history leaves through
// a recorded stage or compaction (its ID in a Removed list).
//
// For the starting history this is checked message by message. The
// messages the loop adds are not all in the trace, so they are accounted
// by ID: the loop names the messages it makes m1, m2, ... in order
// (skipping IDs the caller took). Every loop-made ID below the highest
// one seen that is neither in the final history nor in a Removed list was
// dropped; the loop may drop only the replies it deliberately discards
// (one per max_output_tokens_escalate, malformed_tool_use_retry and
// empty_reply_retry, one per fallback whose failed request had received
// content) and the boundary marker of each successful compaction (the
// next iteration's messagesForQuery starts after it, SPEC §2.1.1).
func checkNothingLost(r Run) []Violation {
	res := r.Result
	var out []Violation
	add := func(i int, format string, args ...any) {
		out = append(out, Violation{Invariant: "nothing_lost", Event: i, Detail: fmt.Sprintf(format, args...)})
	}
	present := map[string]bool{}
	for _, m := range res.State.Messages {
		present[m.ID] = true
	}
	removed := map[string]int{}
	noteRemoved := func(i int, ids []string) {
		for _, id := range ids {
			if _, ok := removed[id]; !ok {
				removed[id] = i
			}
		}
	}
	drops, lastFailedBlocks := 0, 0
	for i, e := range res.Trace {
		switch x := e.(type) {
		case loop.Stage:
			noteRemoved(i, x.Removed)
		case loop.Compaction:
			noteRemoved(i, x.Removed)
			if x.OK {
				drops++ // its boundary
			}
		case loop.RequestFailed:
			lastFailedBlocks = x.Blocks
		case loop.Fallback:
			if lastFailedBlocks > 0 {
				drops++
			}
		case loop.TransitionEvent:
			switch x.Transition {
			case loop.MaxOutputTokensEscalate, loop.MalformedToolUseRetry, loop.EmptyReplyRetry:
				drops++
			}
		}
	}

	initial := initialIDs(r.Initial)
	taken := map[string]bool{}
	for i, id := range initial {
		taken[id] = true
		if !present[id] {
			if _, ok := removed[id]; !ok {
				add(-1, "starting message %s (index %d) is not in the final history and no stage or compaction removed it", id, i)
			}
		}
	}

	highest := 0
	mark := func(id string) {
		if n, ok := loopID(id); ok && !taken[id] {
			highest = max(highest, n)
		}
	}
	for id := range present {
		mark(id)
	}
	for id := range removed {
		mark(id)
	}
	var missing []string
	for n := 1; n <= highest; n++ {
		id := "m" + strconv.Itoa(n)
		if taken[id] || present[id] {
			continue
		}
		if _, ok := removed[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > drops {
		add(-1, "%d loop-made messages left unrecorded (%s); the trace accounts for %d deliberate drops",
			len(missing), strings.Join(missing, ", "), drops)
	}
	return out
}

// initialIDs returns the IDs of the starting history as the loop assigns
// them: a message's own ID, else the next free m1, m2, ...
func initialIDs(msgs []loop.Message) []string {
	taken := map[string]bool{}
	for _, m := range msgs {
		if m.ID != "" {
			taken[m.ID] = true
		}
	}
	out := make([]string, len(msgs))
	next := 0
	for i, m := range msgs {
		if m.ID != "" {
			out[i] = m.ID
			continue
		}
		for {
			next++
			id := "m" + strconv.Itoa(next)
			if !taken[id] {
				taken[id] = true
				out[i] = id
				break
			}
		}
	}
	return out
}

// loopID parses an ID of the form the loop assigns, m<n>.
func loopID(id string) (int, bool) {
	digits, ok := strings.CutPrefix(id, "m")
	if !ok || digits == "" || digits[0] == '0' {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil && n > 0
}
