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
// (skipping IDs the caller took; loop.Message documents it). Every
// loop-made ID below the highest one seen that is neither in the final
// history nor in a Removed list must be a reply the loop deliberately
// discarded, named by the event that discarded it (the Dropped field of a
// max_output_tokens_escalate, malformed_tool_use_retry or
// empty_reply_retry transition, or of a fallback).
func checkNothingLost(r Run) []Violation {
	var out []Violation
	removed := removedIDs(r.Result.Trace)
	present := presentIDs(r.Result.State.Messages)
	initial := initialIDs(r.Initial)
	for i, id := range initial {
		if _, ok := removed[id]; !ok && !present[id] {
			out = append(out, Violation{Invariant: "nothing_lost", Event: -1,
				Detail: fmt.Sprintf("starting message %s (index %d) is not in the final history and no stage or compaction removed it", id, i)})
		}
	}
	if missing := unrecordedLoopMessages(r, initial, removed, present); len(missing) > 0 {
		out = append(out, Violation{Invariant: "nothing_lost", Event: -1,
			Detail: fmt.Sprintf("%d loop-made messages left the history unrecorded and were not discarded by any event: %s",
				len(missing), strings.Join(missing, ", "))})
	}
	return out
}

// removedIDs maps every ID in a Removed list of a stage or compaction
// event to the index of the first such event.
func removedIDs(t loop.Trace) map[string]int {
	removed := map[string]int{}
	note := func(i int, ids []string) {
		for _, id := range ids {
			if _, ok := removed[id]; !ok {
				removed[id] = i
			}
		}
	}
	for i, e := range t {
		switch x := e.(type) {
		case loop.Stage:
			note(i, x.Removed)
		case loop.Compaction:
			note(i, x.Removed)
		}
	}
	return removed
}

// presentIDs is the set of IDs of a history.
func presentIDs(msgs []loop.Message) map[string]bool {
	present := make(map[string]bool, len(msgs))
	for _, m := range msgs {
		present[m.ID] = true
	}
	return present
}

// unrecordedLoopMessages returns the loop-made IDs (m1, m2, ... up to the
// highest seen) that are neither in the final history (present) nor in a
// Removed list (removed) nor starting messages (initial) nor a reply an
// event says it discarded, in order.
func unrecordedLoopMessages(r Run, initial []string, removed map[string]int, present map[string]bool) []string {
	res := r.Result
	dropped := map[string]bool{}
	for _, e := range res.Trace {
		switch x := e.(type) {
		case loop.Fallback:
			dropped[x.Dropped] = x.Dropped != ""
		case loop.TransitionEvent:
			dropped[x.Dropped] = x.Dropped != ""
		}
	}
	taken := make(map[string]bool, len(initial))
	for _, id := range initial {
		taken[id] = true
	}
	highest := 0
	mark := func(id string) {
		if n, ok := loopID(id); ok && !taken[id] {
			highest = max(highest, n)
		}
	}
	for _, m := range res.State.Messages {
		mark(m.ID)
	}
	for id := range removed {
		mark(id)
	}
	for id, ok := range dropped {
		if ok {
			mark(id)
		}
	}
	var missing []string
	for n := 1; n <= highest; n++ {
		id := "m" + strconv.Itoa(n)
		if _, ok := removed[id]; !ok && !taken[id] && !present[id] && !dropped[id] {
			missing = append(missing, id)
		}
	}
	return missing
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
