package fakemodel

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/loopsim/loopsim/loop"
)

// Model is a scripted [loop.Model]. Each request, main or compaction,
// consumes the next step of Script (a step with Repeat answers several),
// or, when Answers is set, the next step of the queue for its purpose and
// model.
// It yields the step's blocks one by one, checking ctx before each, and
// returns ctx.Err() as soon as ctx is cancelled.
//
// The loop calls a Model from one goroutine at a time; the fields it
// writes (Requests) are guarded anyway.
type Model struct {
	// Script is the answers, in order.
	Script []Step
	// Answers, when set, replaces Script: each request takes the next step
	// of the queue for its purpose and model (see [Answers]).
	Answers *Answers
	// BaseTokens is what every request carries besides its messages (the
	// system prompt and the tool definitions, which the loop does not
	// count): it is added to each request's InputTokens before the request
	// is answered, so the usage the model reports, N of a prompt-too-long
	// and input_tokens conditions include it, as a real API's do.
	BaseTokens int
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

	// Hold makes a step's HoldMS hold the request: the model waits that
	// long, or until the request's context ends, before it answers. The
	// fake server's scenarios set it; in process it is off.
	Hold bool

	// Requests records every request received, in order, each with its
	// own copy of the Tools slice (and of Messages with KeepMessages). A
	// request that arrives with its context already cancelled is
	// recorded but consumes no step.
	Requests []RecordedRequest

	mu     sync.Mutex
	queues map[string]*queue // by queue name; created as requests arrive
	script *queue            // the script's queue, once made (without Answers)
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
	// Queue names the queue that ran out when the Model has Answers:
	// "answers.main", "answers.models.NAME.compact", ...; empty for Script.
	Queue string
}

// Error implements error. It is built without fmt: every run of an
// exhaustive exploration that runs out of script words it.
func (e *ExhaustedError) Error() string {
	of := ""
	if e.Queue != "" {
		of = " of " + e.Queue
	}
	return "fakemodel: script exhausted: request " + strconv.Itoa(e.Request) + " (" + string(e.Purpose) +
		") arrived after all " + strconv.Itoa(e.ScriptLen) + " steps" + of + " were used"
}

// StepError is a script step that cannot be played: it is invalid, or
// needs something the Model lacks. It is a harness error, never a
// [*loop.RequestError].
type StepError struct {
	// Step is the step's index in the script, from 0.
	Step int
	// Err says what is wrong.
	Err error
	// Queue names the step's queue when the Model has Answers; empty for
	// Script.
	Queue string
}

// Error implements error.
func (e *StepError) Error() string {
	if e.Queue != "" {
		return fmt.Sprintf("fakemodel: %s step %d: %v", e.Queue, e.Step, e.Err)
	}
	return fmt.Sprintf("fakemodel: script step %d: %v", e.Step, e.Err)
}

// Unwrap returns the underlying error.
func (e *StepError) Unwrap() error { return e.Err }

// Done reports whether the script has been used up: every step played as
// many times as it repeats, or a step that repeats forever reached.
// With Answers, every queue must be.
func (m *Model) Done() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, q := range m.allQueues() {
		if !q.done() {
			return false
		}
	}
	return true
}

// Unplayed names each queue whose steps were not all played, from the
// first step that was not (as "answers.main from step 2 of 4"), for a
// caller that cannot know how many requests will come (a foreign agent).
// Unlike [Model.Done], a step that repeats forever counts as played once
// it is reached, whether or not it answered: it answers whatever comes,
// and nothing need come. A queue that only stands by (the compaction
// requests' summary repeating forever, an agent that never compacts) is
// never named.
func (m *Model) Unplayed() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, q := range m.allQueues() {
		if q.pos < len(q.steps) && q.steps[q.pos].Repeat != Forever {
			out = append(out, fmt.Sprintf("%s from step %d of %d", q.name, q.pos+1, len(q.steps)))
		}
	}
	return out
}

// Stream implements [loop.Model].
func (m *Model) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	m.mu.Lock()
	rec := RecordedRequest{Request: req, History: see(req.Messages)}
	rec.Messages = keep(m.KeepMessages, req.Messages)
	rec.Tools = append([]string(nil), req.Tools...)
	m.Requests = appendRecord(m.Requests, rec)
	number := len(m.Requests)
	if err := ctx.Err(); err != nil {
		m.mu.Unlock()
		return loop.Response{}, err
	}
	q := m.queueFor(req)
	index, step, ok := q.next()
	if !ok {
		m.mu.Unlock()
		e := &ExhaustedError{Request: number, Purpose: req.Purpose, ScriptLen: len(q.steps)}
		if m.Answers != nil {
			e.Queue = q.name
		}
		return loop.Response{}, e
	}
	queueName := ""
	if m.Answers != nil {
		queueName = q.name
	}
	req.InputTokens += m.BaseTokens
	window, cancel, hold := m.Window, m.Cancel, m.Hold
	m.mu.Unlock()

	stepErr := func(err error) error { return &StepError{Step: index, Err: err, Queue: queueName} }
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
	if hold && step.HoldMS > 0 {
		if err := holdFor(ctx, time.Duration(step.HoldMS)*time.Millisecond); err != nil {
			return loop.Response{}, err
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

// holdFor waits d, or until ctx ends (its error).
func holdFor(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
