package fakemodel

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/loopsim/loopsim/loop"
)

// CompactOutcome is one scripted compaction. The zero CompactOutcome
// succeeds with a made-up summary whose size the loop estimates, keeping
// no message. Panic and Err win over the success fields.
type CompactOutcome struct {
	// Summary is the summary text; empty means "<summary>fake summary of
	// N messages</summary>".
	Summary string `json:"summary,omitempty"`
	// SummaryTokens is the summary's size: the compaction brings the
	// conversation down to about this many tokens plus what it keeps.
	SummaryTokens int `json:"summary_tokens,omitempty"`
	// Keep is how many of the newest messages stay verbatim; it is capped
	// so that at least one message is summarised.
	Keep int `json:"keep,omitempty"`
	// Err makes the compaction fail with this error text.
	Err string `json:"err,omitempty"`
	// Panic makes the compaction panic with this value (not recovered
	// here).
	Panic string `json:"panic,omitempty"`
	// Times is how many calls this outcome answers before the next one
	// (0 and 1 mean once): "fail 2 times then succeed" is
	// {Err: "x", Times: 2}, {}. The last outcome answers every later call.
	Times int `json:"times,omitempty"`
}

// Validate reports whether the outcome's figures are in range: sizes up
// to [loop.MaxTokenCount], Keep and Times up to [MaxRepeat].
func (o CompactOutcome) Validate() error {
	switch {
	case o.SummaryTokens < 0 || o.SummaryTokens > loop.MaxTokenCount:
		return fmt.Errorf("summary_tokens %d is outside 0..%d (loop.MaxTokenCount)", o.SummaryTokens, loop.MaxTokenCount)
	case o.Keep < 0 || o.Keep > MaxRepeat:
		return fmt.Errorf("keep %d is outside 0..%d (MaxRepeat)", o.Keep, MaxRepeat)
	}
	return checkTimes(o.Times)
}

// Compactor is a scripted [loop.Compactor]: each call takes the next of
// Outcomes, the last one repeating; with no Outcomes every call succeeds.
// It never calls the model.
type Compactor struct {
	// Outcomes are the compactions, in order.
	Outcomes []CompactOutcome
	// KeepMessages makes Requests keep a full copy of every request's
	// Messages; off, only each request's History is kept.
	KeepMessages bool
	// Requests records every request (with its own copy of Messages only
	// with KeepMessages).
	Requests []RecordedCompaction

	mu  sync.Mutex
	cur cursor
}

var _ loop.Compactor = (*Compactor)(nil)

// Compact implements [loop.Compactor].
func (c *Compactor) Compact(ctx context.Context, req loop.CompactRequest) (loop.CompactResult, error) {
	c.mu.Lock()
	rec := RecordedCompaction{CompactRequest: req, History: see(req.Messages)}
	rec.Messages = keep(c.KeepMessages, req.Messages)
	c.Requests = append(c.Requests, rec)
	var o CompactOutcome
	if len(c.Outcomes) > 0 {
		o = c.Outcomes[c.cur.next(len(c.Outcomes), func(i int) int { return c.Outcomes[i].Times })]
	}
	c.mu.Unlock()

	if err := ctx.Err(); err != nil {
		return loop.CompactResult{}, err
	}
	if o.Panic != "" {
		panic(o.Panic)
	}
	if o.Err != "" {
		return loop.CompactResult{}, errors.New(o.Err)
	}
	summary := o.Summary
	if summary == "" {
		summary = fmt.Sprintf("<summary>fake summary of %d messages</summary>", len(req.Messages))
	}
	keep := max(min(o.Keep, len(req.Messages)-1), 0)
	return loop.CompactResult{Summary: summary, SummaryTokens: max(o.SummaryTokens, 0), Keep: keep}, nil
}
