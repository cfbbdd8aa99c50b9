package fakemodel

import (
	"context"
	"sync"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTools(t *testing.T) {
	tools := &Tools{
		ByName: map[string]Tool{
			"Read":  {Result: "file contents", Tokens: 1200, Concurrent: true},
			"Write": {IsError: true, Result: "disk full"},
			"Bash":  {Err: "exit status 1"},
			"Hook":  {PreventContinuation: true},
			"Rm":    {Deny: "not allowed", PreventContinuation: true},
		},
		ByID:    map[string]Tool{"toolu_9_1": {Result: "special"}},
		Default: Tool{Result: "unknown tool", IsError: true},
	}
	ctx := context.Background()
	for _, tc := range []struct {
		call loop.ToolCall
		want loop.ToolOutcome
		err  string
	}{
		{loop.ToolCall{ID: "a", Name: "Read"}, loop.ToolOutcome{Content: "file contents", Tokens: 1200}, ""},
		{loop.ToolCall{ID: "b", Name: "Write"}, loop.ToolOutcome{Content: "disk full", IsError: true}, ""},
		{loop.ToolCall{ID: "c", Name: "Bash"}, loop.ToolOutcome{}, "exit status 1"},
		{loop.ToolCall{ID: "d", Name: "Hook"}, loop.ToolOutcome{Content: "Hook ok", PreventContinuation: true}, ""},
		{loop.ToolCall{ID: "e", Name: "Rm"}, loop.ToolOutcome{Content: "Permission to use Rm was denied by a PreToolUse hook: not allowed", IsError: true, PreventContinuation: true}, ""},
		{loop.ToolCall{ID: "toolu_9_1", Name: "Read"}, loop.ToolOutcome{Content: "special"}, ""},
		{loop.ToolCall{ID: "f", Name: "Nope"}, loop.ToolOutcome{Content: "unknown tool", IsError: true}, ""},
	} {
		got, err := tools.Run(ctx, tc.call)
		if tc.err == "" {
			assert.NoError(t, err, tc.call.Name)
		} else {
			assert.EqualError(t, err, tc.err, tc.call.Name)
		}
		assert.Equal(t, tc.want, got, tc.call.Name)
	}
	assert.Equal(t, []string{"a", "b", "c", "d", "e", "toolu_9_1", "f"}, tools.CallIDs(), "CallIDs()")
	assert.True(t, tools.ConcurrencySafe(loop.ToolCall{Name: "Read"}), "ConcurrencySafe follows Concurrent")
	assert.False(t, tools.ConcurrencySafe(loop.ToolCall{Name: "Write"}), "ConcurrencySafe follows Concurrent")
	got, _ := (&Tools{}).Run(ctx, loop.ToolCall{Name: "X"})
	assert.Equal(t, "X ok", got.Content, "zero Tools: %+v", got)
	assert.False(t, got.IsError, "zero Tools: %+v", got)
}

// The fake does not recover panics: the loop does.
func TestToolPanicIsNotRecovered(t *testing.T) {
	tools := &Tools{Default: Tool{Panic: "kaboom"}}
	assert.PanicsWithValue(t, "kaboom", func() { tools.Run(context.Background(), loop.ToolCall{Name: "X"}) })
	assert.Len(t, tools.Calls, 1, "the panicking call is recorded")
}

func TestSlowAndAbort(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tools := &Tools{Cancel: cancel, ByName: map[string]Tool{"Slow": {Slow: true}, "Stop": {Abort: true}}}
	var wg sync.WaitGroup
	var slowErr error
	wg.Go(func() { _, slowErr = tools.Run(ctx, loop.ToolCall{ID: "1", Name: "Slow"}) })
	_, err := tools.Run(ctx, loop.ToolCall{ID: "2", Name: "Stop"})
	wg.Wait()
	require.ErrorIs(t, err, context.Canceled, "abort")
	require.ErrorIs(t, slowErr, context.Canceled, "slow")
	// already cancelled: every behaviour reports the context's error
	_, err = tools.Run(ctx, loop.ToolCall{Name: "Whatever"})
	assert.ErrorIs(t, err, context.Canceled, "cancelled")
	// abort without a Cancel is a clear error
	_, err = (&Tools{Default: Tool{Abort: true}}).Run(context.Background(), loop.ToolCall{ID: "x", Name: "A"})
	assert.ErrorContains(t, err, "Cancel is nil", "abort without Cancel")
}

func TestToolsConcurrentRecording(t *testing.T) {
	tools := &Tools{Default: Tool{Concurrent: true}}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() { tools.Run(context.Background(), loop.ToolCall{ID: string(rune('a' + i)), Name: "R", Index: i}) })
	}
	wg.Wait()
	assert.Len(t, tools.Calls, 20, "recorded calls")
}
