package fakemodel

import (
	"context"
	"errors"
	"fmt"
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

// Validate reports whether the outcome makes sense: it blocks or
// prevents, not both; a reason explains a prevention only; Times is
// between 0 and [MaxRepeat].
func (o StopOutcome) Validate() error {
	switch {
	case o.Block != "" && o.Prevent:
		return errors.New("a stop hook outcome either blocks or prevents continuation, not both")
	case o.Reason != "" && !o.Prevent:
		return errors.New("reason explains a prevention: it needs prevent: true")
	}
	return checkTimes(o.Times)
}

// checkTimes bounds an outcome's Times.
func checkTimes(n int) error {
	switch {
	case n < 0:
		return fmt.Errorf("times %d is negative", n)
	case n > MaxRepeat:
		return fmt.Errorf("times %d is above %d (MaxRepeat)", n, MaxRepeat)
	}
	return nil
}

// StopHooks is a scripted [loop.StopHooks]: each call takes the next of
// Outcomes, the last one repeating; with no Outcomes every call passes.
type StopHooks struct {
	// Outcomes are the verdicts, in order.
	Outcomes []StopOutcome
	// KeepMessages makes Inputs keep a full copy of every call's
	// Messages; off, only each call's History is kept.
	KeepMessages bool
	// Inputs records every call's input (with its own copy of Messages
	// only with KeepMessages).
	Inputs []RecordedStopCall

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
	rec := RecordedStopCall{StopHookInput: in, History: see(in.Messages)}
	rec.Messages = keep(h.KeepMessages, in.Messages)
	h.Inputs = appendRecord(h.Inputs, rec)
	var o StopOutcome
	i := -1
	if len(h.Outcomes) > 0 {
		i = h.cur.next(len(h.Outcomes), func(i int) int { return h.Outcomes[i].Times })
		o = h.Outcomes[i]
	}
	h.mu.Unlock()

	if err := o.Validate(); err != nil {
		return loop.StopHookResult{}, fmt.Errorf("fakemodel: stop outcome %d: %w", i, err)
	}

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
