package fakemodel_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// blockingRun runs the seed profile against a model that always answers
// and a stop hook that always blocks, for n iterations: every iteration
// sends the whole, growing history to both fakes.
func blockingRun(tb testing.TB, n int) (*loop.Result, *fakemodel.Model, *fakemodel.StopHooks) {
	tb.Helper()
	model := &fakemodel.Model{Script: []fakemodel.Step{{Text: "done", OutputTokens: 10, Repeat: fakemodel.Forever}}}
	hooks := &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Block: "tests still fail"}}}
	cfg := loop.Config{Policy: loop.Seed(), Model: model, StopHooks: hooks, IterationLimit: n,
		Primary: loop.ModelInfo{Name: "m", ContextWindow: 1_000_000_000, MaxOutputTokens: 64_000}}
	res, err := loop.Run(context.Background(), cfg, []loop.Message{loop.UserText("fix the test")})
	require.NoError(tb, err)
	require.True(tb, res.Halted)
	return res, model, hooks
}

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestScriptedFakesRecordInConstantSpace: the fakes record each call in
// space that does not grow with the history, so a run of 2,000
// iterations allocates per iteration about what a run of 250 does (when
// they copied the history on every call it was 8 times as much).
func TestScriptedFakesRecordInConstantSpace(t *testing.T) {
	small := allocated(func() { blockingRun(t, 250) }) / 250
	large := allocated(func() { blockingRun(t, 2_000) }) / 2_000
	t.Logf("bytes per iteration: %d at 250 iterations, %d at 2,000", small, large)
	assert.Less(t, float64(large), 2*float64(small), "per-iteration allocation grows with the history")
}

// TestFakesRecordWhatTheHistoryHeld: without KeepMessages the fakes keep
// the size and newest message of each call's history, not its messages.
func TestFakesRecordWhatTheHistoryHeld(t *testing.T) {
	res, model, hooks := blockingRun(t, 3)
	require.Len(t, model.Requests, 3)
	require.Len(t, hooks.Inputs, 3)
	for i, r := range model.Requests {
		assert.Nil(t, r.Messages, "request %d kept its messages", i)
		assert.Equal(t, 1+2*i, r.History.Messages, "request %d: the history grows by the reply and the hook's feedback", i)
	}
	last := model.Requests[2].History
	assert.Equal(t, "user:meta", last.LastKind, "the newest message of a later request is the hook's feedback")
	in := hooks.Inputs[0]
	assert.Nil(t, in.Messages)
	assert.Equal(t, fakemodel.Seen{Messages: 2, LastID: "m2", LastKind: "assistant", LastTokens: 10}, in.History)
	assert.Equal(t, 3, res.Stats.Iterations)
}

// TestKeepMessagesCopies: with KeepMessages every record has its own copy.
func TestKeepMessagesCopies(t *testing.T) {
	model := &fakemodel.Model{Script: []fakemodel.Step{{Text: "ok"}}, KeepMessages: true}
	msgs := []loop.Message{loop.UserText("hi")}
	_, err := model.Stream(context.Background(), loop.Request{Purpose: loop.PurposeMain, Messages: msgs}, func(loop.Block) {})
	require.NoError(t, err)
	msgs[0] = loop.UserText("changed")
	require.Len(t, model.Requests[0].Messages, 1)
	assert.Equal(t, "hi", model.Requests[0].Messages[0].Text())
}

// TestLongStreamStopsWithTheContext: the made-up chunks of a long
// stream_error are built as they stream, so cancelling stops them.
func TestLongStreamStopsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	model := &fakemodel.Model{Script: []fakemodel.Step{{Kind: fakemodel.StreamError, After: fakemodel.MaxAfter}}}
	yielded := 0
	_, err := model.Stream(ctx, loop.Request{Purpose: loop.PurposeMain}, func(loop.Block) {
		yielded++
		if yielded == 10 {
			cancel()
		}
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 10, yielded)
}

// TestStepBounds: every count a step states is bounded, and the bound is
// in the error.
func TestStepBounds(t *testing.T) {
	for _, c := range []struct {
		step fakemodel.Step
		want string
	}{
		{fakemodel.Step{Kind: fakemodel.StreamError, After: 300_000_000}, "after 300000000 is above 10000 (MaxAfter)"},
		{fakemodel.Step{Text: "x", Repeat: 2_000_000}, "repeat 2000000 is above 1000000 (MaxRepeat)"},
		{fakemodel.Step{Text: "x", OutputTokens: 1 << 62}, "output_tokens 4611686018427387904 is above 1099511627776 (loop.MaxTokenCount)"},
		{fakemodel.Step{Kind: fakemodel.RateLimited, RetryAfterMS: 9223372036854775807}, "retry_after_ms 9223372036854775807 is above 86400000 (loop.MaxRetryAfterMS)"},
		{fakemodel.Step{Kind: fakemodel.OtherStatus, Status: 200}, "other_status needs an error status between 400 and 599, got 200"},
		{fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: "not json"}}}, `tool_uses[0]: input "not json" is not a JSON object`},
		{fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: "[1]"}}}, `tool_uses[0]: input "[1]" is not a JSON object`},
	} {
		assert.EqualError(t, c.step.Validate(), c.want)
	}
	assert.NoError(t, fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"path": "a"}`}}}.Validate())
}

// TestStopOutcomeThatBlocksAndPrevents is refused: a hook does one or the
// other.
func TestStopOutcomeThatBlocksAndPrevents(t *testing.T) {
	o := fakemodel.StopOutcome{Block: "again", Prevent: true}
	require.EqualError(t, o.Validate(), "a stop hook outcome either blocks or prevents continuation, not both")
	require.EqualError(t, fakemodel.StopOutcome{Reason: "why"}.Validate(), "reason explains a prevention: it needs prevent: true")
	hooks := &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{o}}
	_, err := hooks.RunStopHooks(context.Background(), loop.StopHookInput{})
	require.EqualError(t, err, "fakemodel: stop outcome 0: a stop hook outcome either blocks or prevents continuation, not both")
}

// BenchmarkScriptedFakes is the loop with the scripted model and an
// always-blocking stop hook at 10, 100 and 1,000 turns (iterations), and
// 8,000 for memory. ns/turn must stay flat: the fakes record each call
// in constant time. cpu-ns/turn is the same in CPU time (where the
// system reports it), which other work on a shared machine does not
// inflate; with -cpu 1 it is the benchmark's own work and its GC.
// allocs/turn and B/turn are the allocations per turn.
//
//	go test ./fakemodel -run XXX -bench ScriptedFakes -benchmem -cpu 1
func BenchmarkScriptedFakes(b *testing.B) {
	for _, n := range []int{10, 100, 1_000, 8_000} {
		b.Run(fmt.Sprintf("turns=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			cpu0, ok := cpuTime()
			for b.Loop() {
				blockingRun(b, n)
			}
			cpu1, ok1 := cpuTime()
			runtime.ReadMemStats(&after)
			turns := float64(b.N) * float64(n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/turns, "ns/turn")
			if ok && ok1 {
				b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/turns, "cpu-ns/turn")
			}
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/turns, "allocs/turn")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/turns, "B/turn")
		})
	}
}

// TestSummaryDoesNotDependOnTheScheduler: the loop runs a summary beside
// the next request, which an abort may cancel before the summary's
// goroutine first runs; the scripted summary answers the same either way
// (only Slow waits for the cancellation). Before, a cancelled context
// gave "context canceled" instead of the summary: a flaky trace.
func TestSummaryDoesNotDependOnTheScheduler(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &fakemodel.Summarizer{Outcomes: []fakemodel.SummaryOutcome{{}, {Text: "read a file"}, {Err: "no"}, {Slow: true}}}
	calls := []loop.ToolCall{{ID: "t1", Name: "Read"}}
	text, err := s.Summarize(ctx, calls, nil)
	require.NoError(t, err)
	assert.Equal(t, "Used Read", text)
	text, err = s.Summarize(ctx, calls, nil)
	require.NoError(t, err)
	assert.Equal(t, "read a file", text)
	_, err = s.Summarize(ctx, calls, nil)
	require.EqualError(t, err, "no")
	_, err = s.Summarize(ctx, calls, nil)
	require.ErrorIs(t, err, context.Canceled)
}
