package fakemodel

import (
	"context"
	"fmt"
	"sync"

	"github.com/loopsim/loopsim/loop"
)

// Model is a scripted [loop.Model]. Each request, main or compaction,
// consumes the next step of Script (a step with Repeat answers several).
// It yields the step's blocks one by one, checking ctx before each, and
// returns ctx.Err() as soon as ctx is cancelled.
//
// The loop calls a Model from one goroutine at a time; the fields it
// writes (Requests) are guarded anyway.
type Model struct {
	// Script is the answers, in order.
	Script []Step
	// Window is the default maximum M of a prompt-too-long error and what
	// [ValueWindow] stands for in conditions.
	Window int
	// Cancel is called by [Abort] steps; it should cancel the context the
	// loop runs with.
	Cancel context.CancelFunc

	// KeepMessages makes Requests keep a full copy of every request's
	// Messages. Off, a request's Messages are not kept (nil) and only
	// its History is, so recording costs the same at any history length.
	KeepMessages bool

	// Requests records every request received, in order, each with its
	// own copy of the Tools slice (and of Messages with KeepMessages). A
	// request that arrives with its context already cancelled is
	// recorded but consumes no step.
	Requests []RecordedRequest

	mu   sync.Mutex
	pos  int // index of the step answering the next request
	used int // requests Script[pos] has answered so far
}

var _ loop.Model = (*Model)(nil)

// ExhaustedError is returned when a request arrives after the script is
// used up. It is a harness error, never a [*loop.RequestError].
type ExhaustedError struct {
	// Request is the request's number, from 1.
	Request int
	// Purpose is the request's purpose.
	Purpose loop.Purpose
	// ScriptLen is the number of steps in the script.
	ScriptLen int
}

// Error implements error.
func (e *ExhaustedError) Error() string {
	return fmt.Sprintf("fakemodel: script exhausted: request %d (%s) arrived after all %d steps were used",
		e.Request, e.Purpose, e.ScriptLen)
}

// StepError is a script step that cannot be played: it is invalid, or
// needs something the Model lacks. It is a harness error, never a
// [*loop.RequestError].
type StepError struct {
	// Step is the step's index in the script, from 0.
	Step int
	// Err says what is wrong.
	Err error
}

// Error implements error.
func (e *StepError) Error() string {
	return fmt.Sprintf("fakemodel: script step %d: %v", e.Step, e.Err)
}

// Unwrap returns the underlying error.
func (e *StepError) Unwrap() error { return e.Err }

// Done reports whether the script has been used up: every step played as
// many times as it repeats, or a step that repeats forever reached.
func (m *Model) Done() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pos >= len(m.Script) || (m.Script[m.pos].Repeat == Forever && m.used > 0)
}

// Stream implements [loop.Model].
func (m *Model) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	m.mu.Lock()
	rec := RecordedRequest{Request: req, History: see(req.Messages)}
	rec.Messages = keep(m.KeepMessages, req.Messages)
	rec.Tools = append([]string(nil), req.Tools...)
	m.Requests = append(m.Requests, rec)
	number := len(m.Requests)
	if err := ctx.Err(); err != nil {
		m.mu.Unlock()
		return loop.Response{}, err
	}
	if m.pos >= len(m.Script) {
		m.mu.Unlock()
		return loop.Response{}, &ExhaustedError{Request: number, Purpose: req.Purpose, ScriptLen: len(m.Script)}
	}
	index, step := m.pos, m.Script[m.pos]
	m.used++
	if step.Repeat != Forever && m.used >= max(step.Repeat, 1) {
		m.pos++
		m.used = 0
	}
	window, cancel := m.Window, m.Cancel
	m.mu.Unlock()

	stepErr := func(err error) error { return &StepError{Step: index, Err: err} }
	if err := step.Validate(); err != nil {
		return loop.Response{}, stepErr(err)
	}
	for step.If != nil {
		holds, err := step.If.Eval(req, number, window)
		if err != nil {
			return loop.Response{}, stepErr(err)
		}
		if holds {
			step = *step.Then
		} else {
			step = *step.Else
		}
	}
	p, err := play(step, req, number, window)
	if err != nil {
		return loop.Response{}, stepErr(err)
	}
	if p.abort && cancel == nil {
		return loop.Response{}, stepErr(fmt.Errorf("an %s step needs the Model's Cancel", Abort))
	}
	for _, b := range p.blocks {
		if err := ctx.Err(); err != nil {
			return loop.Response{}, err
		}
		yield(b)
	}
	for i := range p.made {
		if err := ctx.Err(); err != nil {
			return loop.Response{}, err
		}
		yield(chunk(len(p.blocks) + i))
	}
	if err := ctx.Err(); err != nil {
		return loop.Response{}, err
	}
	if p.abort {
		cancel()
		if err := ctx.Err(); err != nil {
			return loop.Response{}, err
		}
		return loop.Response{}, stepErr(fmt.Errorf("the Model's Cancel did not cancel the request's context"))
	}
	if p.err != nil {
		return loop.Response{}, p.err
	}
	return p.resp, nil
}
