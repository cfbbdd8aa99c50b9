package fakemodel

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/loopsim/loopsim/loop"
)

// SummaryOutcome is one scripted tool-use summary. The zero SummaryOutcome
// succeeds with "Used <tool>, <tool>..." naming the batch's tools in
// order. Panic, Slow and Err win over Text, in that order.
type SummaryOutcome struct {
	// Text is the summary.
	Text string `json:"text,omitempty"`
	// Err makes the summarizer fail with this error text.
	Err string `json:"err,omitempty"`
	// Panic makes the summarizer panic with this value (not recovered
	// here).
	Panic string `json:"panic,omitempty"`
	// Slow makes the summarizer block until its context is cancelled,
	// then return ctx.Err().
	Slow bool `json:"slow,omitempty"`
	// Times is how many calls this outcome answers before the next one
	// (0 and 1 mean once). The last outcome answers every later call.
	Times int `json:"times,omitempty"`
}

// Validate reports whether Times is in range.
func (o SummaryOutcome) Validate() error { return checkTimes(o.Times) }

// SummarizeCall is one recorded call of a [Summarizer].
type SummarizeCall struct {
	// Calls are the batch's tool calls.
	Calls []loop.ToolCall
	// Results are the batch's tool_result messages.
	Results []loop.Message
}

// Summarizer is a scripted [loop.ToolUseSummarizer]: each call takes the
// next of Outcomes, the last one repeating; with no Outcomes every call
// succeeds. Every outcome but Slow answers at once, whether or not the
// context is cancelled. The loop runs it in the background: Calls is
// guarded by a mutex.
type Summarizer struct {
	// Outcomes are the summaries, in order.
	Outcomes []SummaryOutcome
	// Calls records every call, with copies of its slices.
	Calls []SummarizeCall

	mu  sync.Mutex
	cur cursor
}

var _ loop.ToolUseSummarizer = (*Summarizer)(nil)

// Summarize implements [loop.ToolUseSummarizer].
func (s *Summarizer) Summarize(ctx context.Context, calls []loop.ToolCall, results []loop.Message) (string, error) {
	s.mu.Lock()
	s.Calls = append(s.Calls, SummarizeCall{Calls: append([]loop.ToolCall(nil), calls...), Results: append([]loop.Message(nil), results...)})
	var o SummaryOutcome
	if len(s.Outcomes) > 0 {
		o = s.Outcomes[s.cur.next(len(s.Outcomes), func(i int) int { return s.Outcomes[i].Times })]
	}
	s.mu.Unlock()

	// The loop runs the summary in the background, alongside the next
	// request: an abort may cancel ctx before or after this call starts,
	// as the scheduler has it. So only a Slow outcome looks at ctx, and a
	// run's trace does not depend on the scheduler.
	if o.Panic != "" {
		panic(o.Panic)
	}
	if o.Slow {
		<-ctx.Done()
		return "", ctx.Err()
	}
	if o.Err != "" {
		return "", errors.New(o.Err)
	}
	if o.Text != "" {
		return o.Text, nil
	}
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	return "Used " + strings.Join(names, ", "), nil
}
