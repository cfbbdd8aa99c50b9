package fakemodel

import (
	"context"
	"errors"
	"testing"

	"github.com/loopsim/loopsim/loop"
)

func TestSummarizer(t *testing.T) {
	s := &Summarizer{Outcomes: []SummaryOutcome{{}, {Err: "no"}, {Text: "Read two files"}}}
	calls := []loop.ToolCall{{Name: "Read"}, {Name: "Grep"}}
	ctx := context.Background()
	if got, err := s.Summarize(ctx, calls, nil); got != "Used Read, Grep" || err != nil {
		t.Errorf("1st: %q, %v", got, err)
	}
	if _, err := s.Summarize(ctx, calls, nil); err == nil || err.Error() != "no" {
		t.Errorf("2nd: %v", err)
	}
	for range 2 {
		if got, err := s.Summarize(ctx, calls, nil); got != "Read two files" || err != nil {
			t.Errorf("last: %q, %v", got, err)
		}
	}
	if len(s.Calls) != 4 || len(s.Calls[0].Calls) != 2 {
		t.Errorf("recorded %+v", s.Calls)
	}
	slow := &Summarizer{Outcomes: []SummaryOutcome{{Slow: true}}}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { _, err := slow.Summarize(cctx, calls, nil); done <- err }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("slow: %v", err)
	}
}
