package fakemodel

import (
	"context"
	"errors"
	"sync"

	"github.com/loopsim/loopsim/loop"
)

// StopFailureOutcome is one call's behaviour of the scripted stop-failure
// hooks. The zero StopFailureOutcome succeeds.
type StopFailureOutcome struct {
	// Err makes the hooks fail with this error text.
	Err string `json:"err,omitempty"`
	// Panic makes the hooks panic with this value (not recovered here).
	Panic string `json:"panic,omitempty"`
	// Times is how many calls this outcome answers before the next one
	// (0 and 1 mean once). The last outcome answers every later call.
	Times int `json:"times,omitempty"`
}

// StopFailureHooks is a scripted [loop.StopFailureHooks]: each call takes
// the next of Outcomes, the last one repeating; with no Outcomes every
// call succeeds. It records what it was told.
type StopFailureHooks struct {
	// Outcomes are the behaviours, in order.
	Outcomes []StopFailureOutcome
	// Inputs records every call's input, with its own copy of Messages.
	Inputs []loop.StopFailureInput

	mu  sync.Mutex
	cur cursor
}

var _ loop.StopFailureHooks = (*StopFailureHooks)(nil)

// Errors returns the API error each recorded call was told, in order.
func (h *StopFailureHooks) Errors() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, len(h.Inputs))
	for i, in := range h.Inputs {
		out[i] = in.Error
	}
	return out
}

// RunStopFailureHooks implements [loop.StopFailureHooks].
func (h *StopFailureHooks) RunStopFailureHooks(ctx context.Context, in loop.StopFailureInput) error {
	h.mu.Lock()
	rec := in
	rec.Messages = append([]loop.Message(nil), in.Messages...) // once a run: a copy costs nothing
	h.Inputs = append(h.Inputs, rec)
	var o StopFailureOutcome
	if len(h.Outcomes) > 0 {
		o = h.Outcomes[h.cur.next(len(h.Outcomes), func(i int) int { return h.Outcomes[i].Times })]
	}
	h.mu.Unlock()

	if err := ctx.Err(); err != nil {
		return err
	}
	if o.Panic != "" {
		panic(o.Panic)
	}
	if o.Err != "" {
		return errors.New(o.Err)
	}
	return nil
}
