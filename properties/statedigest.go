package properties

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// stateDigest is the hash of everything that decides a run's future at
// one model call (see [ExploreStates] for why it is enough).
type stateDigest [sha256.Size]byte

// stateProbe watches one run (the loop's Observer and OnModelCall) and,
// when the model's script runs out, takes the digest of the state at the
// call that found it empty: the state every extension of the script
// starts its first new step from.
type stateProbe struct {
	// stretch are the transitions since the last next_turn: what the
	// invariants' stretch counters remember of the past.
	stretch []loop.Transition
	call    loop.ModelCall
	hooks   *fakemodel.StopHooks
	fails   *fakemodel.StopFailureHooks
	compact *fakemodel.Compactor
	digest  stateDigest
	// taken: the script ran out and the probe looked; mergeable: the
	// call was a main request, so digest holds its state.
	taken, mergeable bool
	err              error
}

// observe is the loop's Observer.
func (p *stateProbe) observe(e loop.Event) {
	if x, ok := e.(loop.TransitionEvent); ok {
		if x.Transition == loop.NextTurn {
			p.stretch = p.stretch[:0]
		} else {
			p.stretch = append(p.stretch, x.Transition)
		}
	}
}

// modelCall is the loop's OnModelCall.
func (p *stateProbe) modelCall(c loop.ModelCall) { p.call = c }

// take computes the digest of the call in progress; it runs inside the
// model's Stream, while the request's messages are still valid. Only a
// main request's state is known whole (a compaction request runs inside
// a compactor whose own progress the loop does not expose): at any other
// the probe marks the run as not mergeable.
func (p *stateProbe) take() {
	p.taken = true
	c := p.call
	if c.Request.Purpose != loop.PurposeMain {
		return
	}
	p.mergeable = true
	h := sha256.New()
	w := digestWriter{h: h}
	w.json(struct {
		Model                                        string
		MaxTokens, InputTokens                       int
		Tools                                        []string
		NonStreaming                                 bool
		Attempt, Retries, Overloads, Resends, Thinks int
		Iteration, State                             loop.State
		Iterations, Requests                         int
		FellBack                                     bool
		MessagesMade, OutputTotal, JitterDraws       int
		Pending                                      bool
		Stretch                                      []loop.Transition
	}{c.Request.Model, c.Request.MaxTokens, c.Request.InputTokens, c.Request.Tools, c.Request.NonStreaming,
		c.Attempt, c.Retries, c.Overloads, c.Resends, c.ThinkingResends,
		c.Iteration, c.State, c.Stats.Iterations, c.Stats.Requests, c.FellBack,
		c.MessagesMade, c.OutputTotal, c.JitterDraws,
		c.State.PendingToolUseSummary != nil, p.stretch})
	w.messages(c.Request.Messages)
	w.messages(c.Iteration.Messages)
	w.messages(c.State.Messages)
	w.int(cursor(p.hooks != nil, func() int { return len(p.hooks.Inputs) }))
	w.int(cursor(p.fails != nil, func() int { return len(p.fails.Inputs) }))
	w.int(cursor(p.compact != nil, func() int { return len(p.compact.Requests) }))
	if w.err != nil && p.err == nil {
		p.err = w.err
	}
	copy(p.digest[:], h.Sum(nil))
}

// cursor is a fake's position (the calls it has answered), or -1 when
// the fake is not configured.
func cursor(configured bool, calls func() int) int {
	if !configured {
		return -1
	}
	return calls()
}

// digestWriter feeds a hash with length-prefixed fields, so that no two
// different sequences of fields hash the same bytes.
type digestWriter struct {
	h interface{ Write([]byte) (int, error) }
	// buf is reused for integers.
	buf [binary.MaxVarintLen64]byte
	err error
}

func (w *digestWriter) int(n int) {
	k := binary.PutVarint(w.buf[:], int64(n))
	_, _ = w.h.Write(w.buf[:k])
}

func (w *digestWriter) bytes(b []byte) {
	w.int(len(b))
	_, _ = w.h.Write(b)
}

func (w *digestWriter) json(v any) {
	b, err := json.Marshal(v)
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("state digest: %w", err)
	}
	w.bytes(b)
}

func (w *digestWriter) messages(msgs []loop.Message) {
	w.int(len(msgs))
	for _, m := range msgs {
		w.json(m)
	}
}
