package fakemodel

import (
	"context"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		_, err := c.Compact(ctx, loop.CompactRequest{Messages: history(6)})
		require.EqualError(t, err, "summary call failed", "call %d", i+1)
	}
	res, err := c.Compact(ctx, loop.CompactRequest{Messages: history(6)})
	require.NoError(t, err, "3rd")
	require.Equal(t, loop.CompactResult{Summary: "<summary>fake summary of 6 messages</summary>", SummaryTokens: 3000, Keep: 2}, res, "3rd")
	for range 2 { // the last outcome repeats; Keep is capped below the message count
		res, err = c.Compact(ctx, loop.CompactRequest{Messages: history(4), Trigger: loop.TriggerReactive})
		require.NoError(t, err, "last")
		require.Equal(t, 3, res.Keep, "last: %+v", res)
		require.Equal(t, "<summary>short</summary>", res.Summary, "last: %+v", res)
	}
	if assert.Len(t, c.Requests, 5, "recorded requests") {
		assert.Equal(t, loop.TriggerReactive, c.Requests[4].Trigger, "the 5th request's trigger")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = c.Compact(cancelled, loop.CompactRequest{})
	assert.ErrorIs(t, err, context.Canceled, "cancelled")
}

func TestCompactorPanicIsNotRecovered(t *testing.T) {
	c := &Compactor{Outcomes: []CompactOutcome{{Panic: "compact"}}}
	assert.PanicsWithValue(t, "compact", func() { c.Compact(context.Background(), loop.CompactRequest{}) })
}
