package fakemodel

import (
	"slices"

	"github.com/loopsim/loopsim/loop"
)

// Seen is what a fake records of the history a call was handed, in time
// that does not depend on the history's length: how many messages it
// held and the newest one's ID, kind ([loop.Message.Kind]) and size.
// The fakes keep full copies of the messages only when asked
// (KeepMessages), so a run of thousands of iterations costs them the same
// per call as a run of ten.
type Seen struct {
	// Messages is how many messages the history held.
	Messages int
	// LastID, LastKind and LastTokens describe the newest message; empty
	// when the history was.
	LastID     string
	LastKind   string
	LastTokens int
}

// see records msgs in constant time.
func see(msgs []loop.Message) Seen {
	s := Seen{Messages: len(msgs)}
	if n := len(msgs); n > 0 {
		last := &msgs[n-1]
		s.LastID, s.LastKind, s.LastTokens = last.ID, last.Kind(), last.Tokens
	}
	return s
}

// appendRecord appends x to a fake's list of calls, doubling the list
// when it is full: a long run records thousands of calls, and append's
// growth by a quarter would copy each record several times over.
func appendRecord[T any](list []T, x T) []T {
	if len(list) == cap(list) {
		list = slices.Grow(list, max(len(list), 8))
	}
	return append(list, x)
}

// keep returns a copy of msgs when asked to keep them, else nil.
func keep(ask bool, msgs []loop.Message) []loop.Message {
	if !ask {
		return nil
	}
	return append([]loop.Message(nil), msgs...)
}

// RecordedRequest is one request a [Model] received: the request, with
// its own copy of Messages only when the Model's KeepMessages is set, and
// what its history held.
type RecordedRequest struct {
	loop.Request
	// History is what the request's messages held.
	History Seen
}

// RecordedStopCall is one call of [StopHooks]: the input, with its own
// copy of Messages only when KeepMessages is set, and what its history
// held.
type RecordedStopCall struct {
	loop.StopHookInput
	// History is what the input's messages held.
	History Seen
}

// RecordedCompaction is one call of a [Compactor]: the request, with its
// own copy of Messages only when KeepMessages is set, and what its
// history held.
type RecordedCompaction struct {
	loop.CompactRequest
	// History is what the request's messages held.
	History Seen
}
