package fakemodel

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// TestHoldWaitsUntilTheClientLeaves: with Hold on, a step's hold_ms holds
// the request until its context ends (the client gave up), which the
// request then returns; the next step answers at once.
func TestHoldWaitsUntilTheClientLeaves(t *testing.T) {
	m := &Model{Hold: true, Script: []Step{{Text: "late", HoldMS: MaxHoldMS}, {Text: "now"}}}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := m.Stream(ctx, loop.Request{}, func(loop.Block) {})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	var got []loop.Block
	_, err = m.Stream(context.Background(), loop.Request{}, func(b loop.Block) { got = append(got, b) })
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "now", got[0].Text)
}

// TestHoldIsOffInProcess: without Hold, hold_ms changes nothing; with it,
// a short hold delays the answer.
func TestHoldIsOffInProcess(t *testing.T) {
	m := &Model{Script: []Step{{Text: "at once", HoldMS: MaxHoldMS}}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := m.Stream(ctx, loop.Request{}, func(loop.Block) {})
	require.NoError(t, err)

	m = &Model{Hold: true, Script: []Step{{Text: "after a while", HoldMS: 30}}}
	began := time.Now()
	_, err = m.Stream(context.Background(), loop.Request{}, func(loop.Block) {})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(began), 30*time.Millisecond)
}

// TestHoldValidates: hold_ms is bounded and goes on a branch's then or
// else, not on the branch.
func TestHoldValidates(t *testing.T) {
	cond := &Condition{Field: FieldRequest, Op: OpEq, Value: "1"}
	assert.NoError(t, Step{Kind: RateLimited, HoldMS: 10}.Validate())
	assert.ErrorContains(t, Step{HoldMS: -1, Text: "x"}.Validate(), "hold_ms -1")
	assert.ErrorContains(t, Step{HoldMS: MaxHoldMS + 1, Text: "x"}.Validate(), "MaxHoldMS")
	assert.ErrorContains(t, Step{If: cond, Then: &Step{Text: "a"}, Else: &Step{Text: "b"}, HoldMS: 5}.Validate(), "then or else")
	assert.NoError(t, Step{If: cond, Then: &Step{Text: "a", HoldMS: 5}, Else: &Step{Text: "b"}}.Validate())
}
