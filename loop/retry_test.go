package loop_test

import (
	"context"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var haiku = loop.ModelInfo{Name: "haiku", ContextWindow: 200_000, MaxOutputTokens: 8_000}

// Every attempt of a request is numbered, and so is each retry.
func TestRetryAttemptsAreNumbered(t *testing.T) {
	res, _ := ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.Overloaded, Repeat: 2}, textStep}}, "fallback", "false")
	checkSeq(t, res, "M:529 → M:529 → M:text", loop.Completed)
	var attempts []int
	for _, r := range res.Trace.Requests() {
		attempts = append(attempts, r.Attempt)
	}
	assert.Equal(t, []int{1, 2, 3}, attempts, "request attempts")
	var retries []int
	for _, r := range events[loop.Retry](res.Trace) {
		retries = append(retries, r.Attempt)
	}
	assert.Equal(t, []int{2, 3}, retries, "retry events name the attempt they lead to")
}

// The fallback needs both the policy's switch and a fallback model.
func TestOverloadFallbackNeedsTheSwitchAndAModel(t *testing.T) {
	overloaded := []fakemodel.Step{{Kind: fakemodel.Overloaded, Repeat: fakemodel.Forever}}
	t.Run("no fallback model: overloaded gives up after 3", func(t *testing.T) {
		res, _ := ccRun(t, fixture{script: overloaded})
		checkSeq(t, res, "M:529 → M:529 → M:529", loop.APIError)
		assert.Empty(t, events[loop.Fallback](res.Trace))
		term := events[loop.TerminalEvent](res.Trace)
		require.Len(t, term, 1)
		assert.Contains(t, term[0].Message, "529 overloaded", "the user is shown the 529, not a fallback")
		assert.NotContains(t, term[0].Message, "fallback")
	})
	t.Run("a fallback model but the switch off", func(t *testing.T) {
		res, model := ccRun(t, fixture{fallback: haiku, script: overloaded}, "fallback", "false")
		checkSeq(t, res, "M:529 → M:529 → M:529", loop.APIError)
		assert.Empty(t, events[loop.Fallback](res.Trace))
		for _, r := range model.Requests {
			assert.Equal(t, "opus", r.Model)
		}
	})
	t.Run("both: the third 529 switches", func(t *testing.T) {
		res, model := ccRun(t, fixture{fallback: haiku, script: []fakemodel.Step{{Kind: fakemodel.Overloaded, Repeat: 3}, textStep}})
		checkSeq(t, res, "M:529 → M:529 → M:529 → M:text", loop.Completed)
		require.Len(t, events[loop.Fallback](res.Trace), 1)
		assert.Equal(t, "haiku", model.Requests[3].Model)
		assert.Contains(t, events[loop.Notice](res.Trace),
			loop.Notice{Text: "Switched from opus to haiku (fallback triggered by 3 consecutive overloaded (529) responses)"}, "the user is told why")
	})
	t.Run("a 500 switches at once, and says so", func(t *testing.T) {
		res, _ := ccRun(t, fixture{fallback: haiku, script: []fakemodel.Step{{Kind: fakemodel.ServerError}, textStep}})
		checkSeq(t, res, "M:500 → M:text", loop.Completed)
		assert.Contains(t, events[loop.Notice](res.Trace), loop.Notice{Text: "Switched from opus to haiku (fallback triggered by a server error (500))"})
	})
}

// fallback_after_529s: 0 never switches on 529s (they are retried), 1
// switches on the first.
func TestFallbackAfter529sBounds(t *testing.T) {
	script := []fakemodel.Step{{Kind: fakemodel.Overloaded, Repeat: 4}, textStep}
	never, model := ccRun(t, fixture{fallback: haiku, script: script}, "fallback_after_529s", "0")
	checkSeq(t, never, "M:529 → M:529 → M:529 → M:529 → M:text", loop.Completed)
	assert.Empty(t, events[loop.Fallback](never.Trace))
	assert.Equal(t, "opus", model.Requests[4].Model)

	first, model := ccRun(t, fixture{fallback: haiku, script: script}, "fallback_after_529s", "1")
	require.Len(t, events[loop.Fallback](first.Trace), 1)
	assert.Equal(t, "haiku", model.Requests[1].Model, "the first 529 switches")
}

// A request that fails while the user aborts is not retried, whatever
// the failure: the run ends aborted.
func TestNoRetryAfterAnAbort(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	model := modelFunc(func(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
		calls++
		cancel()
		return loop.Response{}, &loop.RequestError{Kind: loop.KindOverloaded, Status: 529, Message: "overloaded"}
	})
	res, err := loop.Run(ctx, loop.Config{Policy: cc(t), Model: model, Primary: opus, Tools: &fakemodel.Tools{}},
		[]loop.Message{loop.UserText("go")})
	require.NoError(t, err)
	assert.Equal(t, loop.AbortedStreaming, res.Terminal)
	assert.Equal(t, 1, calls, "model calls")
	assert.Empty(t, events[loop.Retry](res.Trace))
}

// overloaded_give_up_after 1: with no fallback model the first 529 ends
// the run.
func TestOverloadedGiveUpAfterOne(t *testing.T) {
	res, _ := ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.Overloaded, Repeat: fakemodel.Forever}}}, "overloaded_give_up_after", "1")
	checkSeq(t, res, "M:529", loop.APIError)
}

// A stream cut after a thinking block alone is streamed again at once: a
// retry event names the attempt, with no delay.
func TestThinkingOnlyCutIsARetry(t *testing.T) {
	cut := fakemodel.Step{Kind: fakemodel.StreamError, Thinking: "Let me look.", After: 1}
	res, _ := ccRun(t, fixture{script: []fakemodel.Step{cut, textStep}})
	require.Equal(t, loop.Completed, res.Terminal)
	assert.Equal(t, []loop.Retry{{Attempt: 2, Reason: loop.KindStream}}, events[loop.Retry](res.Trace))
}

// Back-off is min(base x 2^(k-1), max) for every retry k: a zero base
// means no delay however many retries there are (the 32nd included).
func TestZeroBackoffBaseNeverDelays(t *testing.T) {
	p := seedWith(t, "backoff_base_ms", "0", "api_retries", "40")
	res, _ := run(t, fixture{policy: p, script: []fakemodel.Step{{Kind: fakemodel.ServerError, Repeat: 35}, textStep}})
	require.Equal(t, loop.Completed, res.Terminal)
	retries := events[loop.Retry](res.Trace)
	require.Len(t, retries, 35)
	for _, r := range retries {
		assert.Zero(t, r.DelayMS, "retry %d", r.Attempt-1)
	}
	assert.Zero(t, res.Stats.RetryDelayMS)
}

// A retry-after of one millisecond is honoured: it is not the exponential
// back-off.
func TestRetryAfterOfOneMillisecond(t *testing.T) {
	p := seedWith(t, "api_retries", "1", "backoff_jitter", "0")
	res, _ := run(t, fixture{policy: p, script: []fakemodel.Step{{Kind: fakemodel.RateLimited, RetryAfterMS: 1}, textStep}})
	require.Equal(t, loop.Completed, res.Terminal)
	assert.Equal(t, []loop.Retry{{Attempt: 2, Reason: loop.KindRateLimited, DelayMS: 1}}, events[loop.Retry](res.Trace))
}

// An invalid request is re-sent at once: each re-send is a retry event
// naming its attempt.
func TestInvalidRequestResendsAreRetries(t *testing.T) {
	res, _ := ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.InvalidRequest, Repeat: 2}, textStep}})
	require.Equal(t, loop.Completed, res.Terminal)
	assert.Equal(t, []loop.Retry{{Attempt: 2, Reason: loop.KindInvalidRequest}, {Attempt: 3, Reason: loop.KindInvalidRequest}},
		events[loop.Retry](res.Trace))
}

// A retry-after of exactly MaxRetryAfterMS (a day) is an answer an API
// may send: it is honoured, not refused.
func TestRetryAfterOfADay(t *testing.T) {
	p := seedWith(t, "api_retries", "1", "backoff_jitter", "0")
	res, _ := run(t, fixture{policy: p, script: []fakemodel.Step{{Kind: fakemodel.RateLimited, RetryAfterMS: loop.MaxRetryAfterMS}, textStep}})
	require.Equal(t, loop.Completed, res.Terminal)
	assert.Equal(t, []loop.Retry{{Attempt: 2, Reason: loop.KindRateLimited, DelayMS: loop.MaxRetryAfterMS}}, events[loop.Retry](res.Trace))
}
