package fakemodel

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/loopsim/loopsim/loop"
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
		if (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) || got != tc.want {
			t.Errorf("%s: (%+v, %v), want (%+v, %q)", tc.call.Name, got, err, tc.want, tc.err)
		}
	}
	if got := tools.CallIDs(); !slices.Equal(got, []string{"a", "b", "c", "d", "e", "toolu_9_1", "f"}) {
		t.Errorf("CallIDs() = %v", got)
	}
	if !tools.ConcurrencySafe(loop.ToolCall{Name: "Read"}) || tools.ConcurrencySafe(loop.ToolCall{Name: "Write"}) {
		t.Error("ConcurrencySafe does not follow Concurrent")
	}
	if got, _ := (&Tools{}).Run(ctx, loop.ToolCall{Name: "X"}); got.Content != "X ok" || got.IsError {
		t.Errorf("zero Tools: %+v", got)
	}
}

// The fake does not recover panics: the loop does.
func TestToolPanicIsNotRecovered(t *testing.T) {
	tools := &Tools{Default: Tool{Panic: "kaboom"}}
	defer func() {
		if r := recover(); r != "kaboom" {
			t.Errorf("recovered %v, want kaboom", r)
		}
		if len(tools.Calls) != 1 {
			t.Errorf("the panicking call was not recorded")
		}
	}()
	tools.Run(context.Background(), loop.ToolCall{Name: "X"})
	t.Error("Run returned")
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
	if !errors.Is(err, context.Canceled) || !errors.Is(slowErr, context.Canceled) {
		t.Fatalf("abort: %v, slow: %v", err, slowErr)
	}
	// already cancelled: every behaviour reports the context's error
	if _, err := tools.Run(ctx, loop.ToolCall{Name: "Whatever"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// abort without a Cancel is a clear error
	_, err = (&Tools{Default: Tool{Abort: true}}).Run(context.Background(), loop.ToolCall{ID: "x", Name: "A"})
	if err == nil || !strings.Contains(err.Error(), "Cancel is nil") {
		t.Errorf("abort without Cancel: %v", err)
	}
}

func TestToolsConcurrentRecording(t *testing.T) {
	tools := &Tools{Default: Tool{Concurrent: true}}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() { tools.Run(context.Background(), loop.ToolCall{ID: string(rune('a' + i)), Name: "R", Index: i}) })
	}
	wg.Wait()
	if len(tools.Calls) != 20 {
		t.Errorf("recorded %d calls, want 20", len(tools.Calls))
	}
}
