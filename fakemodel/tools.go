package fakemodel

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/loopsim/loopsim/loop"
)

// Tool is how one scripted tool behaves. The zero Tool succeeds at once
// with the content "<name> ok". When several fields are set they act in
// this order: Deny, Panic, Abort, Slow, Err, then the result.
type Tool struct {
	// Result is the tool_result content; empty means "<name> ok".
	Result string `json:"result,omitempty"`
	// Tokens is the result's size in tokens; zero lets the loop estimate.
	Tokens int `json:"tokens,omitempty"`
	// IsError makes the result an error result.
	IsError bool `json:"is_error,omitempty"`
	// Err makes Run fail with this error text (the loop turns it into an
	// error result).
	Err string `json:"err,omitempty"`
	// Panic makes Run panic with this value. The fake does not recover it.
	Panic string `json:"panic,omitempty"`
	// Slow makes Run block until its context is cancelled, then return
	// ctx.Err(). Something else must cancel: an Abort tool, an Abort step,
	// or the test.
	Slow bool `json:"slow,omitempty"`
	// Abort makes Run call the Tools' Cancel, then return ctx.Err(): the
	// user aborted while tools ran.
	Abort bool `json:"abort,omitempty"`
	// Deny is a pre-tool hook denying the call: the tool does not run and
	// the result is an error result giving this reason.
	Deny string `json:"deny,omitempty"`
	// PreventContinuation is a pre- or post-tool hook saying the query
	// must not continue; the call itself still completes.
	PreventContinuation bool `json:"prevent_continuation,omitempty"`
	// Concurrent reports the call safe to run alongside other safe calls.
	Concurrent bool `json:"concurrent,omitempty"`
}

// Validate reports whether the behaviour's size is in range (0 to
// [loop.MaxTokenCount]).
func (t Tool) Validate() error {
	if t.Tokens < 0 || t.Tokens > loop.MaxTokenCount {
		return fmt.Errorf("tokens %d is outside 0..%d (loop.MaxTokenCount)", t.Tokens, loop.MaxTokenCount)
	}
	return nil
}

// Tools is a scripted [loop.Tools] and [loop.ConcurrencySafe]. A call's
// behaviour is ByID[call.ID] if present, else ByName[call.Name], else
// Default. Tools may be run concurrently: Calls is guarded by a mutex.
type Tools struct {
	// ByName gives a behaviour per tool name.
	ByName map[string]Tool
	// ByID gives a behaviour per tool_use id; it wins over ByName.
	ByID map[string]Tool
	// Default is the behaviour of every other call.
	Default Tool
	// Cancel is called by Abort tools; it should cancel the context the
	// loop runs with.
	Cancel context.CancelFunc

	// Calls records every call in the order Run was entered. Calls run
	// concurrently arrive in scheduler order; sort by Index or ID to
	// compare them.
	Calls []loop.ToolCall

	mu sync.Mutex
}

var (
	_ loop.Tools           = (*Tools)(nil)
	_ loop.ConcurrencySafe = (*Tools)(nil)
)

// behaviour returns the Tool for a call.
func (t *Tools) behaviour(call loop.ToolCall) Tool {
	if b, ok := t.ByID[call.ID]; ok {
		return b
	}
	if b, ok := t.ByName[call.Name]; ok {
		return b
	}
	return t.Default
}

// CallIDs returns the IDs of the recorded calls, in the order recorded.
func (t *Tools) CallIDs() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	ids := make([]string, len(t.Calls))
	for i, c := range t.Calls {
		ids[i] = c.ID
	}
	return ids
}

// ConcurrencySafe implements [loop.ConcurrencySafe].
func (t *Tools) ConcurrencySafe(call loop.ToolCall) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.behaviour(call).Concurrent
}

// Run implements [loop.Tools].
func (t *Tools) Run(ctx context.Context, call loop.ToolCall) (loop.ToolOutcome, error) {
	t.mu.Lock()
	t.Calls = append(t.Calls, call)
	b := t.behaviour(call)
	cancel := t.Cancel
	t.mu.Unlock()

	if err := ctx.Err(); err != nil {
		return loop.ToolOutcome{}, err
	}
	if b.Deny != "" {
		return loop.ToolOutcome{Content: fmt.Sprintf("Permission to use %s was denied by a PreToolUse hook: %s", call.Name, b.Deny),
			IsError: true, PreventContinuation: b.PreventContinuation}, nil
	}
	if b.Panic != "" {
		panic(b.Panic)
	}
	if b.Abort {
		if cancel == nil {
			return loop.ToolOutcome{}, fmt.Errorf("fakemodel: tool %s (%s) aborts but the Tools' Cancel is nil", call.Name, call.ID)
		}
		cancel()
		if err := ctx.Err(); err != nil {
			return loop.ToolOutcome{}, err
		}
		return loop.ToolOutcome{}, fmt.Errorf("fakemodel: tool %s (%s): the Tools' Cancel did not cancel the call's context", call.Name, call.ID)
	}
	if b.Slow {
		<-ctx.Done()
		return loop.ToolOutcome{}, ctx.Err()
	}
	if b.Err != "" {
		return loop.ToolOutcome{}, errors.New(b.Err)
	}
	content := b.Result
	if content == "" {
		content = call.Name + " ok"
	}
	return loop.ToolOutcome{Content: content, Tokens: b.Tokens, IsError: b.IsError,
		PreventContinuation: b.PreventContinuation}, nil
}
