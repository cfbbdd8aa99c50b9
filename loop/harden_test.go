package loop_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// modelFunc is a Model written as a function.
type modelFunc func(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error)

func (f modelFunc) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	return f(ctx, req, yield)
}

func text(s string) []loop.Block { return []loop.Block{{Type: loop.BlockText, Text: s}} }

func use(id string) loop.Block {
	return loop.Block{Type: loop.BlockToolUse, ID: id, Name: "Read", Input: "{}"}
}

func result(id string) loop.Block {
	return loop.Block{Type: loop.BlockToolResult, ToolUseID: id, Text: "ok"}
}

// TestRunRefusesMalformedHistories: a starting history the API would
// refuse is an error naming the message and the rule, never a run the
// loop is blamed for.
func TestRunRefusesMalformedHistories(t *testing.T) {
	user := func(id string, b ...loop.Block) loop.Message {
		return loop.Message{ID: id, Role: loop.RoleUser, Blocks: b}
	}
	asst := func(id string, b ...loop.Block) loop.Message {
		return loop.Message{ID: id, Role: loop.RoleAssistant, Blocks: b}
	}
	hi := text("hi")[0]
	for _, c := range []struct {
		name string
		msgs []loop.Message
		want string
	}{
		{"empty", nil, "the history is empty"},
		{"assistant first", []loop.Message{asst("a", hi)}, `message 0 ("a"): the first message must be the user's, not the assistant's`},
		{"no blocks", []loop.Message{user("u"), asst("a", hi)}, `message 0 ("u"): a message needs at least one content block`},
		{"orphan tool_result", []loop.Message{user("u", hi), asst("a", hi), user("r", result("t1"))},
			`message 2 ("r"): block 0: tool_result answers "t1", which is no tool_use of an earlier message`},
		{"two results for one use", []loop.Message{user("u", hi), asst("a", use("t1")), user("r", result("t1")), user("r2", result("t1"))},
			`message 3 ("r2"): block 0: tool_use "t1" already has a tool_result`},
		{"unanswered tool_use", []loop.Message{user("u", hi), asst("a", use("t1")), user("r", hi)},
			`message 1 ("a"): tool_use "t1" has no tool_result in a later message`},
		{"duplicate tool_use ids", []loop.Message{user("u", hi), asst("a", use("t1")), user("r", result("t1")), asst("b", use("t1"))},
			`message 3 ("b"): block 0: tool_use id "t1" is also used in message 1`},
		{"tool_use from the user", []loop.Message{user("u", use("t1"))}, `message 0 ("u"): block 0: a tool_use belongs in an assistant message`},
		{"tool_result from the assistant", []loop.Message{user("u", hi), asst("a", use("t1"), result("t1"))},
			`message 1 ("a"): block 1: a tool_result belongs in a user message`},
		{"duplicate message ids", []loop.Message{user("u", hi), asst("a", hi), user("a", hi)}, `message 2 ("a"): id "a" is also the id of message 1`},
		{"unknown role", []loop.Message{user("u", hi), {ID: "s", Role: "system", Blocks: text("x")}}, `message 1 ("s"): role "system" is neither "user" nor "assistant"`},
		{"unknown block type", []loop.Message{user("u", loop.Block{Type: "image"})}, `message 0 ("u"): block 0: unknown block type "image"`},
		{"tool_use without an id", []loop.Message{user("u", hi), asst("a", loop.Block{Type: loop.BlockToolUse, Name: "Read"})},
			`message 1 ("a"): block 0: tool_use has an empty id`},
		{"tool_use without a name", []loop.Message{user("u", hi), asst("a", loop.Block{Type: loop.BlockToolUse, ID: "t1"})},
			`message 1 ("a"): block 0: tool_use "t1" has an empty name`},
		{"tool_result without a tool_use_id", []loop.Message{user("u", loop.Block{Type: loop.BlockToolResult, Text: "x"})},
			`message 0 ("u"): block 0: tool_result has an empty tool_use_id`},
		{"negative block size", []loop.Message{user("u", loop.Block{Type: loop.BlockText, Text: "x", Tokens: -1})},
			`message 0 ("u"): block 0: tokens -1 is negative`},
		{"huge size", []loop.Message{{ID: "u", Role: loop.RoleUser, Blocks: text("x"), Tokens: 5_000_000_000_000_000_000}},
			`message 0 ("u"): tokens 5000000000000000000 is above 1099511627776 (MaxTokenCount)`},
		{"huge usage", []loop.Message{user("u", hi), {ID: "a", Role: loop.RoleAssistant, Blocks: text("x"), Usage: &loop.Usage{OutputTokens: math.MaxInt64}}},
			`message 1 ("a"): usage: output_tokens 9223372036854775807 is above`},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := &fakemodel.Model{Script: []fakemodel.Step{{Text: "done"}}}
			_, err := loop.Run(t.Context(), loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet}, c.msgs)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "loop: starting history: "+c.want)
			var he *loop.HistoryError
			assert.True(t, errors.As(err, &he), "error is a *loop.HistoryError")
			assert.Empty(t, model.Requests, "no request may be sent")
		})
	}
}

// TestRunRefusesSizesThatCouldWrap: the model's sizes and the token
// budget are bounded, so the loop's sums cannot overflow.
func TestRunRefusesSizesThatCouldWrap(t *testing.T) {
	model := &fakemodel.Model{Script: []fakemodel.Step{{Text: "done"}}}
	huge := loop.ModelInfo{Name: "huge", ContextWindow: math.MaxInt64, MaxOutputTokens: 1000}
	_, err := loop.Run(t.Context(), loop.Config{Policy: loop.Seed(), Model: model, Primary: huge}, []loop.Message{loop.UserText("hi")})
	require.ErrorContains(t, err, `config: Primary "huge": context window 9223372036854775807 and max output 1000 must be at most 1099511627776`)
	_, err = loop.Run(t.Context(), loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet, TokenBudget: math.MaxInt64}, []loop.Message{loop.UserText("hi")})
	require.ErrorContains(t, err, "config: TokenBudget 9223372036854775807 is above")
}

// TestResponseSizesAreChecked: usage near MaxInt64 and a retry-after no
// API sends are harness faults (model_error), never wrapped sums.
func TestResponseSizesAreChecked(t *testing.T) {
	for _, c := range []struct {
		name  string
		model modelFunc
		want  string
	}{
		{"usage", func(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
			yield(text("done")[0])
			return loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{InputTokens: 10, OutputTokens: math.MaxInt64 - 5}}, nil
		}, "response usage: output_tokens 9223372036854775802 is above 1099511627776"},
		{"retry-after", func(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
			return loop.Response{}, &loop.RequestError{Kind: loop.KindRateLimited, Status: 429, Message: "slow down", RetryAfterMS: math.MaxInt64}
		}, "retry_after_ms 9223372036854775807 is outside 0..86400000"},
		{"stop reason", func(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
			yield(text("done")[0])
			return loop.Response{StopReason: "pause_turn", Usage: loop.Usage{InputTokens: 10, OutputTokens: 5}}, nil
		}, `response stop_reason "pause_turn" is not one of end_turn, tool_use, max_tokens`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := loop.Run(t.Context(), loop.Config{Policy: loop.Seed(), Model: c.model, Primary: sonnet}, []loop.Message{loop.UserText("hi")})
			require.NoError(t, err)
			assert.Equal(t, loop.ModelError, res.Terminal)
			assert.GreaterOrEqual(t, res.Stats.OutputTokens, 0)
			assert.GreaterOrEqual(t, res.Stats.RetryDelayMS, 0)
			last := res.Trace[len(res.Trace)-1].(loop.TerminalEvent)
			assert.Contains(t, last.Message, c.want)
		})
	}
}

// TestObserverPanicIsRecovered: a panicking Observer is recovered like
// every other seam; the run goes on and Run says what happened.
func TestObserverPanicIsRecovered(t *testing.T) {
	model := &fakemodel.Model{Script: []fakemodel.Step{{Text: "done"}}}
	calls := 0
	cfg := loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet, Observer: func(e loop.Event) {
		calls++
		if calls == 2 {
			panic("observer bug")
		}
	}}
	var res *loop.Result
	var err error
	require.NotPanics(t, func() { res, err = loop.Run(t.Context(), cfg, []loop.Message{loop.UserText("hi")}) })
	require.ErrorContains(t, err, "loop: the run went on without its Observer: observer panicked: observer bug")
	var pe *loop.PanicError
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, "observer", pe.Where)
	require.NotNil(t, res)
	assert.Equal(t, loop.Completed, res.Terminal)
	assert.Equal(t, 2, calls, "the observer is not called after it panicked")
	assert.Contains(t, events[loop.Notice](res.Trace), loop.Notice{Text: "observer panicked and was switched off: observer bug"},
		"the trace says the observer was switched off")
}

// TestModelIgnoringCancellation: a Model that never returns once the
// context is done cannot hang Run: after the grace period Run returns an
// error naming the seam.
func TestModelIgnoringCancellation(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	model := modelFunc(func(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
		yield(text("partial")[0])
		<-release // ignores ctx
		yield(text("late")[0])
		return loop.Response{StopReason: loop.StopEndTurn}, nil
	})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	cfg := loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet, CancelGrace: 50 * time.Millisecond}
	done := make(chan struct{})
	var res *loop.Result
	var err error
	go func() {
		defer close(done)
		res, err = loop.Run(ctx, cfg, []loop.Message{loop.UserText("hi")})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		require.FailNow(t, "Run did not return after its context was done and the grace period passed")
	}
	assert.Nil(t, res)
	require.ErrorContains(t, err, "loop: model seam: Stream did not return within 50ms after the run's context was done")
	var se *loop.StuckError
	require.True(t, errors.As(err, &se))
	assert.Equal(t, "model", se.Seam)
}

// TestModelHonouringCancellationIsUnaffected: a Model that returns soon
// after cancellation ends the run aborted, as before.
func TestModelHonouringCancellationIsUnaffected(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	model := modelFunc(func(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
		yield(text("partial")[0])
		cancel()
		<-ctx.Done()
		return loop.Response{}, ctx.Err()
	})
	res, err := loop.Run(ctx, loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet}, []loop.Message{loop.UserText("hi")})
	require.NoError(t, err)
	assert.Equal(t, loop.AbortedStreaming, res.Terminal)
}

// TestReadJSONLKeepsTheReadersError: a reader failing mid-line is
// reported as its own error, not as the JSON of the cut line.
func TestReadJSONLKeepsTheReadersError(t *testing.T) {
	var buf bytes.Buffer
	tr := loop.Trace{loop.IterationStart{Iteration: 1, Turn: 1, Messages: 1}, loop.Notice{Text: "a notice long enough to be cut"}}
	require.NoError(t, tr.WriteJSONL(&buf))
	data := buf.Bytes()
	broken := errors.New("disk on fire")
	r := io.MultiReader(bytes.NewReader(data[:len(data)-10]), iotest.ErrReader(broken))
	got, err := loop.ReadJSONL(r)
	require.ErrorIs(t, err, broken)
	assert.Equal(t, "trace line 2: disk on fire", err.Error())
	assert.Len(t, got, 1)
}

// TestPolicyWithRefusesName: the policy's name is its profile's.
func TestPolicyWithRefusesName(t *testing.T) {
	_, err := loop.Seed().With("name", "claude-code")
	require.ErrorContains(t, err, "policy field name is the profile's name; it cannot be set")
	assert.False(t, strings.Contains(err.Error(), "known fields: name,"))
}
