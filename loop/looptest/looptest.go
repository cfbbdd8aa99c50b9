// Package looptest checks that implementations of the loop's seams honour
// their contracts, in the manner of testing/fstest.TestFS.
//
// Each CheckX function drives an implementation of one seam of package
// loop with a fixed set of inputs and returns an error describing every
// violation it found (nil when there are none). The inputs are
// deterministic; the only clock used is a timeout that turns a seam which
// never returns into a reported violation instead of a hung test.
//
// A typical use, in a test:
//
//	if err := looptest.CheckSnipper(mySnipper{}); err != nil {
//		t.Fatal(err)
//	}
//
// Seams with state (a model, tools, hooks, a compactor) are given as a
// constructor, so that each part of a check starts from a fresh instance.
//
// The package depends on the standard library and package loop only.
package looptest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/loopsim/loopsim/loop"
)

// timeout is how long a seam may take to return once its context is
// cancelled (or, for pure seams, at all).
var timeout = 5 * time.Second

// grace is how long a call with a live context may run before the check
// cancels it to see that it returns.
var grace = 50 * time.Millisecond

// maxViolations caps the violations one check reports.
const maxViolations = 40

// report collects the violations one check finds.
type report struct {
	check string
	errs  []error
	more  int
}

func (r *report) errorf(format string, args ...any) {
	if len(r.errs) >= maxViolations {
		r.more++
		return
	}
	r.errs = append(r.errs, fmt.Errorf("looptest.%s: "+format, append([]any{r.check}, args...)...))
}

func (r *report) err() error {
	if r.more > 0 {
		r.errs = append(r.errs, fmt.Errorf("looptest.%s: and %d more violations", r.check, r.more))
	}
	return errors.Join(r.errs...)
}

// result is how one call of a seam ended.
type result[T any] struct {
	val      T
	err      error
	panicked any  // the panic value, if it panicked
	hasPanic bool // it panicked (even with a nil value)
	returned bool // it returned (or panicked) in time
	// cancelled is set when the check cancelled the context because the
	// call was still running after the grace period.
	cancelled bool
}

// run calls f in a goroutine with ctx and waits: if live is set and f is
// still running after the grace period, ctx is cancelled; either way f
// must return within the timeout (after the cancellation, if any). A
// call that never returns leaks its goroutine.
func run[T any](ctx context.Context, live bool, f func(ctx context.Context) (T, error)) result[T] {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan result[T], 1)
	go func() {
		var res result[T]
		defer func() {
			if p := recover(); p != nil || !res.returned {
				res.panicked, res.hasPanic, res.returned = p, true, true
			}
			done <- res
		}()
		res.val, res.err = f(ctx)
		res.returned = true
	}()
	cancelled := false
	if live {
		t := time.NewTimer(grace)
		select {
		case res := <-done:
			t.Stop()
			return res
		case <-t.C:
			cancel()
			cancelled = true
		}
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case res := <-done:
		res.cancelled = cancelled
		return res
	case <-t.C:
		return result[T]{cancelled: cancelled}
	}
}

// call calls a pure seam's method f in a goroutine: it must return
// within the timeout.
func call[T any](f func() T) result[T] {
	return run(context.Background(), false, func(context.Context) (T, error) { return f(), nil })
}

// cancelledContext returns a context that is already cancelled.
func cancelledContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// isContextError reports whether err is a context's cancellation error.
func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// cloneMessages deep-copies msgs, keeping nil slices nil, so that a later
// reflect.DeepEqual with the original shows whether it was modified.
func cloneMessages(msgs []loop.Message) []loop.Message {
	if msgs == nil {
		return nil
	}
	out := make([]loop.Message, len(msgs))
	for i, m := range msgs {
		if m.Blocks != nil {
			m.Blocks = append([]loop.Block{}, m.Blocks...)
		}
		if m.Usage != nil {
			u := *m.Usage
			m.Usage = &u
		}
		out[i] = m
	}
	return out
}

// unmodified reports a violation if msgs no longer equals its clone.
func unmodified(r *report, what string, msgs, clone []loop.Message) {
	if reflect.DeepEqual(msgs, clone) {
		return
	}
	for i := range min(len(msgs), len(clone)) {
		if !reflect.DeepEqual(msgs[i], clone[i]) {
			r.errorf("%s: modified its input: message %d (%q) was %+v, now %+v", what, i, clone[i].ID, clone[i], msgs[i])
			return
		}
	}
	r.errorf("%s: modified its input", what)
}

// conversation returns a deterministic history: a user prompt, then n
// exchanges. Exchange i is an assistant message with one tool_use (two on
// every third exchange) answered by a user message of tool_results, or,
// on every fourth, an assistant text reply followed by a user message.
// Every message has an ID and a size; assistant messages carry usage.
func conversation(n int) []loop.Message {
	msgs := []loop.Message{{ID: "m1", Role: loop.RoleUser, Tokens: 50,
		Blocks: []loop.Block{{Type: loop.BlockText, Text: "Please fix the bug."}}}}
	add := func(m loop.Message) {
		m.ID = fmt.Sprintf("m%d", len(msgs)+1)
		msgs = append(msgs, m)
	}
	for i := 1; i <= n; i++ {
		before := loop.SumTokens(msgs)
		if i%4 == 0 {
			add(loop.Message{Role: loop.RoleAssistant, Tokens: 40, StopReason: loop.StopEndTurn,
				Usage:  &loop.Usage{InputTokens: before, OutputTokens: 40},
				Blocks: []loop.Block{{Type: loop.BlockText, Text: fmt.Sprintf("Step %d done.", i)}}})
			add(loop.Message{Role: loop.RoleUser, Tokens: 20,
				Blocks: []loop.Block{{Type: loop.BlockText, Text: "Go on."}}})
			continue
		}
		uses := 1
		if i%3 == 0 {
			uses = 2
		}
		a := loop.Message{Role: loop.RoleAssistant, Tokens: 60 * uses, StopReason: loop.StopToolUse,
			Usage: &loop.Usage{InputTokens: before, OutputTokens: 60 * uses}}
		u := loop.Message{Role: loop.RoleUser, Tokens: 300 * uses}
		for j := 1; j <= uses; j++ {
			id := fmt.Sprintf("toolu_%d_%d", i, j)
			a.Blocks = append(a.Blocks, loop.Block{Type: loop.BlockToolUse, ID: id, Name: "Read",
				Input: fmt.Sprintf(`{"path":"file%d_%d.go"}`, i, j)})
			u.Blocks = append(u.Blocks, loop.Block{Type: loop.BlockToolResult, ToolUseID: id,
				Text: fmt.Sprintf("contents of file%d_%d.go", i, j), Tokens: 300})
		}
		add(a)
		add(u)
	}
	return msgs
}

// checkBlock applies the loop's rules for a content block.
func checkBlock(b loop.Block) error {
	if b.Tokens < 0 {
		return fmt.Errorf("tokens %d is negative", b.Tokens)
	}
	switch b.Type {
	case loop.BlockText, loop.BlockThinking:
	case loop.BlockToolUse:
		if b.ID == "" {
			return errors.New("tool_use has an empty id")
		}
		if b.Name == "" {
			return fmt.Errorf("tool_use %q has an empty name", b.ID)
		}
	case loop.BlockToolResult:
		if b.ToolUseID == "" {
			return errors.New("tool_result has an empty tool_use_id")
		}
	default:
		return fmt.Errorf("unknown block type %q", b.Type)
	}
	return nil
}

// checkPairs reports tool_use blocks of out whose tool_result was in the
// input but is gone from out, and tool_results of out whose tool_use is
// not in out.
func checkPairs(r *report, what string, in, out []loop.Message) {
	answered := map[string]bool{}
	for _, m := range in {
		for _, b := range m.Blocks {
			if b.Type == loop.BlockToolResult {
				answered[b.ToolUseID] = true
			}
		}
	}
	uses, results := map[string]bool{}, map[string]bool{}
	for _, m := range out {
		for _, b := range m.Blocks {
			switch b.Type {
			case loop.BlockToolUse:
				uses[b.ID] = true
			case loop.BlockToolResult:
				results[b.ToolUseID] = true
			}
		}
	}
	for _, m := range out {
		for _, b := range m.Blocks {
			switch {
			case b.Type == loop.BlockToolUse && answered[b.ID] && !results[b.ID]:
				r.errorf("%s: tool_use %q in message %q lost its tool_result", what, b.ID, m.ID)
			case b.Type == loop.BlockToolResult && !uses[b.ToolUseID]:
				r.errorf("%s: tool_result for %q in message %q lost its tool_use", what, b.ToolUseID, m.ID)
			}
		}
	}
}

// checkRemoval checks that out is in with some messages removed (and
// possibly new messages, with IDs not in in, added): kept messages are
// unchanged and in order, removed lists exactly the input messages
// missing from out, oldest first, and the newest keepRecent input
// messages are kept. It returns the removed messages.
func checkRemoval(r *report, what string, in, out []loop.Message, removed []string, keepRecent int) []loop.Message {
	index := map[string]int{}
	for i, m := range in {
		index[m.ID] = i
	}
	kept := map[string]bool{}
	last := -1
	for _, m := range out {
		i, ok := index[m.ID]
		if !ok {
			continue
		}
		if kept[m.ID] {
			r.errorf("%s: message %q appears twice in the output", what, m.ID)
			continue
		}
		kept[m.ID] = true
		if i < last {
			r.errorf("%s: message %q moved before message %q", what, m.ID, in[last].ID)
		}
		last = max(last, i)
		if !reflect.DeepEqual(m, in[i]) {
			r.errorf("%s: kept message %q was changed: was %+v, now %+v", what, m.ID, in[i], m)
		}
	}
	var gone []loop.Message
	var want []string
	for _, m := range in {
		if !kept[m.ID] {
			gone = append(gone, m)
			want = append(want, m.ID)
		}
	}
	if !reflect.DeepEqual(nonNil(removed), nonNil(want)) {
		r.errorf("%s: reported removed %q, but the messages missing from the output are %q", what, removed, want)
	}
	for i := max(len(in)-keepRecent, 0); i < len(in); i++ {
		if !kept[in[i].ID] {
			r.errorf("%s: dropped message %q, one of the newest %d (KeepRecent)", what, in[i].ID, keepRecent)
		}
	}
	return gone
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
