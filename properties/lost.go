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
//
// It runs after every run of an exploration, so it keeps no map of the
// loop-made IDs: their accounts are kept by number (lostAccounts).
func checkNothingLost(r Run) []Violation {
	var out []Violation
	initial := initialIDs(r.Initial)
	a := newLostAccounts(initial)
	res := r.Result
	for i := range res.State.Messages {
		a.note(res.State.Messages[i].ID, idPresent)
	}
	for _, e := range res.Trace {
		switch x := e.(type) {
		case loop.Stage:
			a.noteAll(x.Removed, idRemoved)
		case loop.Compaction:
			a.noteAll(x.Removed, idRemoved)
		case loop.Fallback:
			a.note(x.Dropped, idDropped)
		case loop.TransitionEvent:
			a.note(x.Dropped, idDropped)
		}
	}
	for i, id := range initial {
		if a.startingSaid(i)&(idRemoved|idPresent) == 0 {
			out = append(out, Violation{Invariant: "nothing_lost", Event: -1,
				Detail: fmt.Sprintf("starting message %s (index %d) is not in the final history and no stage or compaction removed it", id, i)})
		}
	}
	if missing := a.missing(); len(missing) > 0 {
		out = append(out, Violation{Invariant: "nothing_lost", Event: -1,
			Detail: fmt.Sprintf("%d loop-made messages left the history unrecorded and were not discarded by any event: %s",
				len(missing), strings.Join(missing, ", "))})
	}
	return out
}

// What a run says of an ID: it is in the final history, a stage or
// compaction removed it, an event dropped it, or it is a starting
// message's.
const (
	idPresent uint8 = 1 << iota
	idRemoved
	idDropped
	idTaken
)

// denseLoopIDs bounds the loop-made IDs whose accounts are kept in a
// slice; larger numbers (no run makes that many messages, but a history
// may name one) go to a map.
const denseLoopIDs = 1 << 16

// lostAccounts is what a run says of each ID checkNothingLost reads:
// of each distinct starting ID, and of each loop-made ID by its number.
type lostAccounts struct {
	// starting is what was said of each distinct starting ID, slot the
	// slot of a starting ID, and slotOf the slot of each starting
	// message.
	starting []uint8
	slot     map[string]int
	slotOf   []int
	// dense and sparse are what was said of the loop-made ID m<n>: dense
	// below denseLoopIDs, sparse from there.
	dense  []uint8
	sparse map[int]uint8
	// highest is the highest loop-made ID seen that is not a starting
	// message's (in the history, removed or dropped).
	highest int
}

func newLostAccounts(initial []string) *lostAccounts {
	a := &lostAccounts{slot: make(map[string]int, len(initial)), slotOf: make([]int, len(initial))}
	for i, id := range initial {
		s, ok := a.slot[id]
		if !ok {
			s = len(a.starting)
			a.slot[id] = s
			a.starting = append(a.starting, 0)
		}
		a.slotOf[i] = s
		if n, ok := canonicalLoopID(id); ok {
			a.mark(n, idTaken)
		}
	}
	return a
}

// note records what the run says of id (nothing of an empty one).
func (a *lostAccounts) note(id string, what uint8) {
	if id == "" {
		return
	}
	if s, ok := a.slot[id]; ok {
		a.starting[s] |= what
		return
	}
	if n, ok := loopID(id); ok {
		a.highest = max(a.highest, n)
		if id[1] != '+' {
			a.mark(n, what)
		}
	}
}

func (a *lostAccounts) noteAll(ids []string, what uint8) {
	for _, id := range ids {
		a.note(id, what)
	}
}

// startingSaid is what was said of starting message i.
func (a *lostAccounts) startingSaid(i int) uint8 { return a.starting[a.slotOf[i]] }

// mark adds what to the account of m<n>.
func (a *lostAccounts) mark(n int, what uint8) {
	if n >= denseLoopIDs {
		if a.sparse == nil {
			a.sparse = map[int]uint8{}
		}
		a.sparse[n] |= what
		return
	}
	if n >= len(a.dense) {
		a.dense = append(a.dense, make([]uint8, n+1-len(a.dense))...)
	}
	a.dense[n] |= what
}

// said is the account of m<n>.
func (a *lostAccounts) said(n int) uint8 {
	if n >= denseLoopIDs {
		return a.sparse[n]
	}
	if n < len(a.dense) {
		return a.dense[n]
	}
	return 0
}

// missing returns the loop-made IDs (m1, m2, ... up to the highest
// seen) of which nothing was said: neither in the final history nor
// removed nor a starting message's nor dropped by an event, in order.
func (a *lostAccounts) missing() []string {
	var out []string
	for n := 1; n <= a.highest; n++ {
		if a.said(n) == 0 {
			out = append(out, "m"+strconv.Itoa(n))
		}
	}
	return out
}

// canonicalLoopID parses an ID spelled exactly as the loop spells the
// ID of its n-th message, "m" and n.
func canonicalLoopID(id string) (int, bool) {
	n, ok := loopID(id)
	return n, ok && id[1] != '+'
}

// initialIDs returns the IDs of the starting history as the loop assigns
// them: a message's own ID, else the next free m1, m2, ...
func initialIDs(msgs []loop.Message) []string {
	out := make([]string, len(msgs))
	var taken map[string]bool
	next := 0
	for i, m := range msgs {
		if m.ID != "" {
			out[i] = m.ID
			continue
		}
		if taken == nil {
			taken = map[string]bool{}
			for _, m := range msgs {
				if m.ID != "" {
					taken[m.ID] = true
				}
			}
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
