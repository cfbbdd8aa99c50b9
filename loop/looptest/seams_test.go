package looptest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// model is a small conforming loop.Model whose behaviour can be broken
// one way at a time through its fields.
type model struct {
	n       int
	pending func(loop.Block) // kept to call after Stream returned (late)
	mutate  func(*model, context.Context, loop.Request, func(loop.Block)) (loop.Response, error, bool)
}

func (m *model) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	if m.mutate != nil {
		if resp, err, ok := m.mutate(m, ctx, req, yield); ok {
			return resp, err
		}
	}
	if err := ctx.Err(); err != nil {
		return loop.Response{}, err
	}
	m.n++
	switch m.n {
	case 2:
		return loop.Response{}, loop.PromptTooLongError(req.InputTokens, 100)
	case 4:
		return loop.Response{}, &loop.RequestError{Kind: loop.KindRateLimited, Status: 429, Message: "slow down", RetryAfterMS: 10}
	}
	blocks := []loop.Block{{Type: loop.BlockText, Text: "working"}}
	stop := loop.StopEndTurn
	if m.n%2 == 1 {
		blocks = append(blocks, loop.Block{Type: loop.BlockToolUse, ID: fmt.Sprintf("toolu_%d", m.n), Name: "Read", Input: "{}"})
		stop = loop.StopToolUse
	}
	for _, b := range blocks {
		if err := ctx.Err(); err != nil {
			return loop.Response{}, err
		}
		yield(b)
	}
	return loop.Response{StopReason: stop, Usage: loop.Usage{InputTokens: req.InputTokens, OutputTokens: 10}}, nil
}

func TestCheckModel(t *testing.T) {
	require.NoError(t, CheckModel(func() loop.Model { return &model{} }), "a conforming model")
	global := 0
	release := make(chan struct{})
	defer close(release)
	for _, tc := range []struct {
		name   string
		mutate func(*model, context.Context, loop.Request, func(loop.Block)) (loop.Response, error, bool)
		want   string
	}{
		{"ignores a cancelled context", func(_ *model, ctx context.Context, _ loop.Request, _ func(loop.Block)) (loop.Response, error, bool) {
			return loop.Response{StopReason: loop.StopEndTurn}, nil, ctx.Err() != nil
		}, "cancelled context returned no error"},
		{"hangs", func(_ *model, _ context.Context, _ loop.Request, _ func(loop.Block)) (loop.Response, error, bool) {
			<-release
			return loop.Response{}, nil, true
		}, "did not return within"},
		{"tool_use without id", func(_ *model, _ context.Context, _ loop.Request, yield func(loop.Block)) (loop.Response, error, bool) {
			yield(loop.Block{Type: loop.BlockToolUse, Name: "Read"})
			return loop.Response{StopReason: loop.StopToolUse}, nil, true
		}, "tool_use has an empty id"},
		{"yields a tool result", func(_ *model, _ context.Context, _ loop.Request, yield func(loop.Block)) (loop.Response, error, bool) {
			yield(loop.Block{Type: loop.BlockToolResult, ToolUseID: "x"})
			return loop.Response{StopReason: loop.StopEndTurn}, nil, true
		}, "a model does not send tool results"},
		{"reuses tool_use ids", func(_ *model, _ context.Context, _ loop.Request, yield func(loop.Block)) (loop.Response, error, bool) {
			yield(loop.Block{Type: loop.BlockToolUse, ID: "toolu_same", Name: "Read"})
			return loop.Response{StopReason: loop.StopToolUse}, nil, true
		}, "was already used by request 1"},
		{"negative usage", func(_ *model, _ context.Context, _ loop.Request, _ func(loop.Block)) (loop.Response, error, bool) {
			return loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{OutputTokens: -1}}, nil, true
		}, "negative usage"},
		{"too much output", func(_ *model, _ context.Context, req loop.Request, _ func(loop.Block)) (loop.Response, error, bool) {
			return loop.Response{StopReason: loop.StopMaxTokens, Usage: loop.Usage{OutputTokens: req.MaxTokens + 1}}, nil, true
		}, "over the request's max_tokens"},
		{"unknown stop reason", func(_ *model, _ context.Context, _ loop.Request, _ func(loop.Block)) (loop.Response, error, bool) {
			return loop.Response{StopReason: "paused"}, nil, true
		}, "unknown stop reason"},
		{"wrong status", func(_ *model, ctx context.Context, _ loop.Request, _ func(loop.Block)) (loop.Response, error, bool) {
			return loop.Response{}, &loop.RequestError{Kind: loop.KindOverloaded, Status: 500, Message: "x"}, ctx.Err() == nil
		}, "want 529"},
		{"malformed prompt-too-long", func(_ *model, ctx context.Context, _ loop.Request, _ func(loop.Block)) (loop.Response, error, bool) {
			return loop.Response{}, &loop.RequestError{Kind: loop.KindPromptTooLong, Status: 400, Message: "too long"}, ctx.Err() == nil
		}, "does not read"},
		{"unknown kind", func(_ *model, ctx context.Context, _ loop.Request, _ func(loop.Block)) (loop.Response, error, bool) {
			return loop.Response{}, &loop.RequestError{Kind: "weird", Message: "x"}, ctx.Err() == nil
		}, "not one of loop.ErrorKinds"},
		{"context error on a live context", func(_ *model, ctx context.Context, _ loop.Request, _ func(loop.Block)) (loop.Response, error, bool) {
			return loop.Response{}, context.Canceled, ctx.Err() == nil
		}, "while its context was live"},
		{"modifies the request", func(_ *model, ctx context.Context, req loop.Request, _ func(loop.Block)) (loop.Response, error, bool) {
			if ctx.Err() == nil {
				req.Messages[0].Tokens = 1
			}
			return loop.Response{}, nil, false
		}, "modified its input"},
		{"yields late", func(m *model, ctx context.Context, _ loop.Request, yield func(loop.Block)) (loop.Response, error, bool) {
			if m.pending != nil {
				m.pending(loop.Block{Type: loop.BlockText, Text: "late"})
			}
			m.pending = yield
			return loop.Response{}, nil, false
		}, "after Stream returned"},
		{"not deterministic", func(_ *model, ctx context.Context, _ loop.Request, yield func(loop.Block)) (loop.Response, error, bool) {
			if ctx.Err() != nil {
				return loop.Response{}, nil, false
			}
			global++
			yield(loop.Block{Type: loop.BlockText, Text: fmt.Sprint(global)})
			return loop.Response{StopReason: loop.StopEndTurn}, nil, true
		}, "differently"},
		{"panics", func(_ *model, _ context.Context, _ loop.Request, _ func(loop.Block)) (loop.Response, error, bool) {
			panic("stream")
		}, "panicked: stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantViolation(t, CheckModel(func() loop.Model { return &model{mutate: tc.mutate} }), tc.want)
		})
	}
}

// toolsFunc adapts a function to loop.Tools; safe, if set, makes it
// loop.ConcurrencySafe too.
type toolsFunc func(context.Context, loop.ToolCall) (loop.ToolOutcome, error)

func (f toolsFunc) Run(ctx context.Context, c loop.ToolCall) (loop.ToolOutcome, error) {
	return f(ctx, c)
}

type safeTools struct {
	toolsFunc
	safe func(loop.ToolCall) bool
}

func (s safeTools) ConcurrencySafe(c loop.ToolCall) bool { return s.safe(c) }

func goodTool(ctx context.Context, c loop.ToolCall) (loop.ToolOutcome, error) {
	if err := ctx.Err(); err != nil {
		return loop.ToolOutcome{}, err
	}
	if c.Name == "Bash" {
		<-ctx.Done() // slow
		return loop.ToolOutcome{}, ctx.Err()
	}
	return loop.ToolOutcome{Content: c.Name + " ok"}, nil
}

func TestCheckTools(t *testing.T) {
	require.NoError(t, CheckTools(func() loop.Tools { return toolsFunc(goodTool) }), "conforming tools")
	all := func(loop.ToolCall) bool { return true }
	require.NoError(t, CheckTools(func() loop.Tools { return safeTools{toolsFunc(goodTool), all} }), "conforming concurrent tools")
	release := make(chan struct{})
	defer close(release)
	flip := false
	for _, tc := range []struct {
		name  string
		tools loop.Tools
		want  string
	}{
		{"ignores a cancelled context", toolsFunc(func(_ context.Context, c loop.ToolCall) (loop.ToolOutcome, error) {
			return loop.ToolOutcome{Content: "done"}, nil
		}), "not the context's error"},
		{"ignores cancellation", toolsFunc(func(ctx context.Context, c loop.ToolCall) (loop.ToolOutcome, error) {
			if ctx.Err() != nil {
				return loop.ToolOutcome{}, ctx.Err()
			}
			<-release
			return loop.ToolOutcome{}, nil
		}), "of its context being cancelled"},
		{"negative tokens", toolsFunc(func(ctx context.Context, c loop.ToolCall) (loop.ToolOutcome, error) {
			if ctx.Err() != nil {
				return loop.ToolOutcome{}, ctx.Err()
			}
			return loop.ToolOutcome{Tokens: -5}, nil
		}), "negative tokens"},
		{"context error on a live context", toolsFunc(func(ctx context.Context, c loop.ToolCall) (loop.ToolOutcome, error) {
			return loop.ToolOutcome{}, fmt.Errorf("wrapped: %w", context.Canceled)
		}), "while its context was live"},
		{"fickle ConcurrencySafe", safeTools{toolsFunc(goodTool), func(loop.ToolCall) bool { flip = !flip; return flip }}, "then"},
		{"panicking ConcurrencySafe", safeTools{toolsFunc(goodTool), func(loop.ToolCall) bool { panic("safe?") }}, "ConcurrencySafe panicked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantViolation(t, CheckTools(func() loop.Tools { return tc.tools }), tc.want)
		})
	}
	// panics and errors are allowed
	assert.NoError(t, CheckTools(func() loop.Tools {
		return toolsFunc(func(context.Context, loop.ToolCall) (loop.ToolOutcome, error) { panic("tool") })
	}), "a panicking tool is allowed")
}

// hooksFunc adapts a function to loop.StopHooks.
type hooksFunc func(context.Context, loop.StopHookInput) (loop.StopHookResult, error)

func (f hooksFunc) RunStopHooks(ctx context.Context, in loop.StopHookInput) (loop.StopHookResult, error) {
	return f(ctx, in)
}

func TestCheckStopHooks(t *testing.T) {
	require.NoError(t, CheckStopHooks(func() loop.StopHooks {
		return hooksFunc(func(_ context.Context, in loop.StopHookInput) (loop.StopHookResult, error) {
			if in.Turn%3 == 0 {
				return loop.StopHookResult{}, errors.New("hook failed")
			}
			if !in.StopHookActive {
				return loop.StopHookResult{BlockingErrors: []string{"run the tests"}}, nil
			}
			return loop.StopHookResult{}, nil
		})
	}), "conforming hooks")
	release := make(chan struct{})
	defer close(release)
	for _, tc := range []struct {
		name  string
		hooks hooksFunc
		want  string
	}{
		{"empty blocking error", func(context.Context, loop.StopHookInput) (loop.StopHookResult, error) {
			return loop.StopHookResult{BlockingErrors: []string{""}}, nil
		}, "is empty"},
		{"modifies its input", func(_ context.Context, in loop.StopHookInput) (loop.StopHookResult, error) {
			in.Messages[len(in.Messages)-1].Meta = true
			return loop.StopHookResult{}, nil
		}, "modified its input"},
		{"hangs", func(context.Context, loop.StopHookInput) (loop.StopHookResult, error) {
			<-release
			return loop.StopHookResult{}, nil
		}, "did not return within"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantViolation(t, CheckStopHooks(func() loop.StopHooks { return tc.hooks }), tc.want)
		})
	}
}

// compactorFunc adapts a function to loop.Compactor.
type compactorFunc func(context.Context, loop.CompactRequest) (loop.CompactResult, error)

func (f compactorFunc) Compact(ctx context.Context, req loop.CompactRequest) (loop.CompactResult, error) {
	return f(ctx, req)
}

func TestCheckCompactorBroken(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    compactorFunc
		want string
	}{
		{"keeps everything", func(_ context.Context, req loop.CompactRequest) (loop.CompactResult, error) {
			return loop.CompactResult{Summary: "s", Keep: len(req.Messages)}, nil
		}, "keeps fewer messages"},
		{"negative summary size", func(context.Context, loop.CompactRequest) (loop.CompactResult, error) {
			return loop.CompactResult{Summary: "s", SummaryTokens: -1}, nil
		}, "is negative"},
		{"empty summary", func(context.Context, loop.CompactRequest) (loop.CompactResult, error) {
			return loop.CompactResult{}, nil
		}, "empty summary"},
		{"modifies its input", func(_ context.Context, req loop.CompactRequest) (loop.CompactResult, error) {
			req.Messages[0].Blocks[0].Text = "changed"
			return loop.CompactResult{Summary: "s"}, nil
		}, "modified its input"},
		{"sends a main request", func(ctx context.Context, req loop.CompactRequest) (loop.CompactResult, error) {
			reply, err := req.Call.Call(ctx, loop.Request{Purpose: loop.PurposeMain, Model: req.Model, Messages: req.Messages})
			return loop.CompactResult{Summary: reply.Text()}, err
		}, "want \"compact\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantViolation(t, CheckCompactor(func() loop.Compactor { return tc.c }), tc.want)
		})
	}
}

// summarizerFunc adapts a function to loop.ToolUseSummarizer.
type summarizerFunc func(context.Context, []loop.ToolCall, []loop.Message) (string, error)

func (f summarizerFunc) Summarize(ctx context.Context, calls []loop.ToolCall, results []loop.Message) (string, error) {
	return f(ctx, calls, results)
}

func TestCheckToolUseSummarizer(t *testing.T) {
	require.NoError(t, CheckToolUseSummarizer(func() loop.ToolUseSummarizer {
		return summarizerFunc(func(ctx context.Context, calls []loop.ToolCall, _ []loop.Message) (string, error) {
			return fmt.Sprintf("%d calls", len(calls)), ctx.Err()
		})
	}), "a conforming summarizer")
	for _, tc := range []struct {
		name string
		s    summarizerFunc
		want string
	}{
		{"empty summary", func(context.Context, []loop.ToolCall, []loop.Message) (string, error) { return "", nil }, "empty summary"},
		{"modifies results", func(_ context.Context, _ []loop.ToolCall, results []loop.Message) (string, error) {
			results[0].Tokens = 0
			return "s", nil
		}, "modified its input"},
		{"modifies calls", func(_ context.Context, calls []loop.ToolCall, _ []loop.Message) (string, error) {
			calls[0].Name = "x"
			return "s", nil
		}, "modified its calls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantViolation(t, CheckToolUseSummarizer(func() loop.ToolUseSummarizer { return tc.s }), tc.want)
		})
	}
}

// stopFailureFunc adapts a function to loop.StopFailureHooks.
type stopFailureFunc func(context.Context, loop.StopFailureInput) error

func (f stopFailureFunc) RunStopFailureHooks(ctx context.Context, in loop.StopFailureInput) error {
	return f(ctx, in)
}

func TestCheckStopFailureHooks(t *testing.T) {
	told := 0
	err := CheckStopFailureHooks(func() loop.StopFailureHooks {
		return stopFailureFunc(func(_ context.Context, in loop.StopFailureInput) error {
			told++
			if in.Turn%2 == 0 {
				return errors.New("failure hook exited 1")
			}
			return nil
		})
	})
	require.NoError(t, err, "conforming hooks")
	assert.Equal(t, 1+stopFailureCalls, told, "calls")

	release := make(chan struct{})
	defer close(release)
	for _, tc := range []struct {
		name  string
		hooks stopFailureFunc
		want  string
	}{
		{"modifies its input", func(_ context.Context, in loop.StopFailureInput) error {
			in.Messages[0].Tokens++
			return nil
		}, "modified its input"},
		{"hangs", func(context.Context, loop.StopFailureInput) error {
			<-release
			return nil
		}, "did not return within"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantViolation(t, CheckStopFailureHooks(func() loop.StopFailureHooks { return tc.hooks }), tc.want)
		})
	}
}
