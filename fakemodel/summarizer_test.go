package fakemodel

import (
	"context"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
)

func TestSummarizer(t *testing.T) {
	s := &Summarizer{Outcomes: []SummaryOutcome{{}, {Err: "no"}, {Text: "Read two files"}}}
	calls := []loop.ToolCall{{Name: "Read"}, {Name: "Grep"}}
	ctx := context.Background()
	got, err := s.Summarize(ctx, calls, nil)
	assert.NoError(t, err, "1st")
	assert.Equal(t, "Used Read, Grep", got, "1st")
	_, err = s.Summarize(ctx, calls, nil)
	assert.EqualError(t, err, "no", "2nd")
	for range 2 {
		got, err := s.Summarize(ctx, calls, nil)
		assert.NoError(t, err, "last")
		assert.Equal(t, "Read two files", got, "last")
	}
	if assert.Len(t, s.Calls, 4, "recorded") {
		assert.Len(t, s.Calls[0].Calls, 2, "the 1st recorded call")
	}
	slow := &Summarizer{Outcomes: []SummaryOutcome{{Slow: true}}}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { _, err := slow.Summarize(cctx, calls, nil); done <- err }()
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled, "slow")
}

// A panicking outcome panics (the loop recovers it), before its text.
func TestSummarizerPanicIsNotRecovered(t *testing.T) {
	s := &Summarizer{Outcomes: []SummaryOutcome{{Panic: "kaboom", Text: "never"}}}
	assert.PanicsWithValue(t, "kaboom", func() { _, _ = s.Summarize(context.Background(), []loop.ToolCall{{Name: "Read"}}, nil) })
	assert.Len(t, s.Calls, 1, "the panicking call is recorded")
}
