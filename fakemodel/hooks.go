package fakemodel

import (
	"context"
	"errors"
	"sync"

	"github.com/loopsim/loopsim/loop"
)

// StopOutcome is one verdict of the scripted stop hooks. The zero
// StopOutcome passes. Panic and Err win over the verdict fields.
type StopOutcome struct {
	// Block is a blocking error fed back to the model.
	Block string `json:"block,omitempty"`
	// Prevent ends the query with stop_hook_prevented.
	Prevent bool `json:"prevent,omitempty"`
	// Reason explains a prevention.
	Reason string `json:"reason,omitempty"`
	// Err makes the hooks fail with this error text.
	Err string `json:"err,omitempty"`
	// Panic makes the hooks panic with this value (not recovered here).
	Panic string `json:"panic,omitempty"`
	// Times is how many calls this outcome answers before the next one
	// (0 and 1 mean once). The last outcome answers every later call.
	Times int `json:"times,omitempty"`
}

// StopHooks is a scripted [loop.StopHooks]: each call takes the next of
// Outcomes, the last one repeating; with no Outcomes every call passes.
type StopHooks struct {
	// Outcomes are the verdicts, in order.
	Outcomes []StopOutcome
	// Inputs records every call's input, with its own copy of Messages.
	Inputs []loop.StopHookInput

	mu  sync.Mutex
	cur cursor
}

var _ loop.StopHooks = (*StopHooks)(nil)

// Active returns the StopHookActive flag of every recorded call.
func (h *StopHooks) Active() []bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]bool, len(h.Inputs))
	for i, in := range h.Inputs {
		out[i] = in.StopHookActive
	}
	return out
}

// RunStopHooks implements [loop.StopHooks].
func (h *StopHooks) RunStopHooks(ctx context.Context, in loop.StopHookInput) (loop.StopHookResult, error) {
	h.mu.Lock()
	rec := in
	rec.Messages = copyMessages(in.Messages)
	h.Inputs = append(h.Inputs, rec)
	var o StopOutcome
	if len(h.Outcomes) > 0 {
		o = h.Outcomes[h.cur.next(len(h.Outcomes), func(i int) int { return h.Outcomes[i].Times })]
	}
	h.mu.Unlock()

	if err := ctx.Err(); err != nil {
		return loop.StopHookResult{}, err
	}
	if o.Panic != "" {
		panic(o.Panic)
	}
	if o.Err != "" {
		return loop.StopHookResult{}, errors.New(o.Err)
	}
	var res loop.StopHookResult
	if o.Block != "" {
		res.BlockingErrors = []string{o.Block}
	}
	res.PreventContinuation = o.Prevent
	res.Reason = o.Reason
	return res, nil
}
