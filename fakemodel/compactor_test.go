package fakemodel

import (
	"context"
	"errors"
	"testing"

	"github.com/loopsim/loopsim/loop"
)

func history(n int) []loop.Message {
	msgs := make([]loop.Message, n)
	for i := range msgs {
		msgs[i] = loop.UserText("m")
	}
	return msgs
}

func TestCompactor(t *testing.T) {
	c := &Compactor{Outcomes: []CompactOutcome{
		{Err: "summary call failed", Times: 2},
		{SummaryTokens: 3000, Keep: 2},
		{Summary: "<summary>short</summary>", Keep: 50},
	}}
	ctx := context.Background()
	for i := range 2 {
		if _, err := c.Compact(ctx, loop.CompactRequest{Messages: history(6)}); err == nil || err.Error() != "summary call failed" {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	res, err := c.Compact(ctx, loop.CompactRequest{Messages: history(6)})
	if err != nil || res != (loop.CompactResult{Summary: "<summary>fake summary of 6 messages</summary>", SummaryTokens: 3000, Keep: 2}) {
		t.Fatalf("3rd: %+v, %v", res, err)
	}
	for range 2 { // the last outcome repeats; Keep is capped below the message count
		res, err = c.Compact(ctx, loop.CompactRequest{Messages: history(4), Trigger: loop.TriggerReactive})
		if err != nil || res.Keep != 3 || res.Summary != "<summary>short</summary>" {
			t.Fatalf("last: %+v, %v", res, err)
		}
	}
	if len(c.Requests) != 5 || c.Requests[4].Trigger != loop.TriggerReactive {
		t.Errorf("recorded %d requests", len(c.Requests))
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Compact(cancelled, loop.CompactRequest{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestCompactorPanicIsNotRecovered(t *testing.T) {
	c := &Compactor{Outcomes: []CompactOutcome{{Panic: "compact"}}}
	defer func() {
		if r := recover(); r != "compact" {
			t.Errorf("recovered %v", r)
		}
	}()
	c.Compact(context.Background(), loop.CompactRequest{})
	t.Error("Compact returned")
}
