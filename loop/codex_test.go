package loop_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// The codex profile, rule by rule of docs/profile-codex.md, each observed
// of the released Codex CLI (observed/testdata/cases/codex).

// gpt is a model Codex knows: a 272,000-token window.
var gpt = loop.ModelInfo{Name: "gpt", ContextWindow: 272_000, MaxOutputTokens: 128_000}

// cxRun runs the codex profile (with overrides) on gpt.
func cxRun(t *testing.T, f fixture, kv ...string) (*loop.Result, *fakemodel.Model) {
	t.Helper()
	p := loop.Codex()
	for i := 0; i < len(kv); i += 2 {
		var err error
		p, err = p.With(kv[i], kv[i+1])
		require.NoError(t, err)
	}
	f.policy = p
	if f.primary.Name == "" {
		f.primary = gpt
	}
	return run(t, f)
}

func step(k fakemodel.Kind) fakemodel.Step { return fakemodel.Step{Kind: k} }

// retries counts the trace's retry events, those of the outer layer
// apart.
func retries(tr loop.Trace) (api, stream int) {
	for _, e := range tr {
		if r, ok := e.(loop.Retry); ok {
			if r.StreamRetry {
				stream++
			} else {
				api++
			}
		}
	}
	return api, stream
}

// Two nested layers: a 500 forever makes (api_retries+1) x
// (stream_retries+1) requests (observed: server-error-forever, 30).
func TestCodexServerErrorRetryLayersMultiply(t *testing.T) {
	res, m := cxRun(t, fixture{script: []fakemodel.Step{forever(step(fakemodel.ServerError))}})
	assert.Equal(t, loop.APIError, res.Terminal)
	assert.Len(t, m.Requests, 30)
	api, stream := retries(res.Trace)
	assert.Equal(t, [2]int{24, 5}, [2]int{api, stream}, "4 API retries in each of 6 stream attempts; 5 stream retries")

	_, m = cxRun(t, fixture{script: []fakemodel.Step{forever(step(fakemodel.ServerError))}}, "api_retries", "2", "stream_retries", "1")
	assert.Len(t, m.Requests, 6, "observed: server-error-forever-budgets-2-1")
	_, m = cxRun(t, fixture{script: []fakemodel.Step{forever(step(fakemodel.ServerError))}}, "stream_retries", "0")
	assert.Len(t, m.Requests, 5, "the outer layer off: the API retries alone")
}

// A 429 is retried only by the outer layer; an overload only by the
// inner one (observed: rate-limited-forever 6, overloaded-forever 5).
func TestCodexRateLimitAndOverloadEachOneLayer(t *testing.T) {
	res, m := cxRun(t, fixture{script: []fakemodel.Step{forever(fakemodel.Step{Kind: fakemodel.RateLimited, RetryAfterMS: 1000})}})
	assert.Len(t, m.Requests, 6)
	api, stream := retries(res.Trace)
	assert.Equal(t, [2]int{0, 5}, [2]int{api, stream})
	assert.GreaterOrEqual(t, res.Stats.RetryDelayMS, 5*1000, "the retry-after is honoured by the outer layer")

	res, m = cxRun(t, fixture{script: []fakemodel.Step{forever(step(fakemodel.Overloaded))}})
	assert.Len(t, m.Requests, 5)
	api, stream = retries(res.Trace)
	assert.Equal(t, [2]int{4, 0}, [2]int{api, stream})
	assert.Equal(t, loop.APIError, res.Terminal)

	_, m = cxRun(t, fixture{script: []fakemodel.Step{forever(fakemodel.Step{Kind: fakemodel.RateLimited})}}, "rate_limited_stream_retry_only", "false")
	assert.Len(t, m.Requests, 30, "with the rule off a 429 goes through both layers as a 500 does")
}

// A 400 and a prompt too long end the run at once; a truncated reply too
// (observed: invalid-request, ptl-first-request, truncated-once).
func TestCodexEndsOnClientErrorsAndTruncation(t *testing.T) {
	for _, k := range []fakemodel.Kind{fakemodel.InvalidRequest, fakemodel.PromptTooLong, fakemodel.Truncated} {
		t.Run(string(k), func(t *testing.T) {
			res, m := cxRun(t, fixture{script: []fakemodel.Step{step(k)}})
			assert.Len(t, m.Requests, 1)
			assert.Contains(t, []loop.Terminal{loop.APIError, loop.PromptTooLong}, res.Terminal)
		})
	}
}

// A cut reply is kept: text alone is streamed again with nothing after
// it, and the continuations count against the stream retries; a
// finished tool call runs (observed: stream-error-after-text(-forever),
// stream-error-after-tool).
func TestCodexStreamCutKeepsReply(t *testing.T) {
	res, m := cxRun(t, fixture{script: []fakemodel.Step{cutAfterText, textStep}})
	checkSeq(t, res, "M:stream_error → stream_error_recovery → M:text", loop.Completed)
	require.Len(t, m.Requests, 2)
	second := m.Requests[1].Messages
	require.Len(t, second, 2, "the prompt and the partial reply, no note")
	assert.Equal(t, "Partial", second[1].Text())

	res, m = cxRun(t, fixture{script: []fakemodel.Step{forever(cutAfterText)}}, "stream_retries", "2")
	checkSeq(t, res, repeatSeq("M:stream_error", "stream_error_recovery", 3), loop.APIError)
	assert.Len(t, m.Requests[2].Messages, 3, "each cut appends its partial reply")

	res, m = cxRun(t, fixture{script: []fakemodel.Step{cutAfterTool, textStep}})
	checkSeq(t, res, "M:stream_error → next_turn → M:text", loop.Completed)
	last := m.Requests[1].Messages
	assert.Equal(t, loop.RoleUser, last[len(last)-1].Role)
	assert.NotEqual(t, loop.StreamErrorToolResult, last[len(last)-1].Blocks[0].Text, "the tool ran")
	assert.False(t, last[len(last)-1].Blocks[0].IsError, "the tool ran")
}

// Auto-compaction at 90% of the window; the request after it carries the
// prompt, then the summary (observed: compact-at-threshold,
// compact-after-3-rounds).
func TestCodexCompactionKeepsThePrompt(t *testing.T) {
	over := toolStep
	over.InputTokens = 245_000
	summary := fakemodel.Step{Text: "the summary", OutputTokens: 30}
	res, m := cxRun(t, fixture{script: []fakemodel.Step{toolStep, over, summary, textStep}})
	checkSeq(t, res, "M:tool → next_turn → M:tool → next_turn → C → M:text", loop.Completed)
	require.Len(t, m.Requests, 4)
	after := m.Requests[3].Messages
	require.Len(t, after, 2)
	assert.Equal(t, m.Requests[0].Messages[0].Text(), after[0].Text(), "the prompt, verbatim")
	assert.Equal(t, "the summary", after[1].Text())

	_, m = cxRun(t, fixture{script: []fakemodel.Step{toolStep, over, summary, textStep}}, "compact_keep_prompt_tokens", "0")
	assert.Len(t, m.Requests[3].Messages, 1, "keeping no prompt leaves the summary alone")

	under := toolStep
	under.InputTokens = 240_000
	res, _ = cxRun(t, fixture{script: []fakemodel.Step{under, textStep}})
	checkSeq(t, res, "M:tool → next_turn → M:text", loop.Completed)
}

// A compaction whose request stays too long ends the run (observed:
// compact-overflows).
func TestCodexFailedCompactionEndsTheRun(t *testing.T) {
	over := toolStep
	over.InputTokens = 260_000
	ptl := forever(fakemodel.Step{Kind: fakemodel.PromptTooLong, Maximum: 272_000})
	res, m := cxRun(t, fixture{script: []fakemodel.Step{over, ptl}})
	assert.Equal(t, loop.APIError, res.Terminal)
	for _, r := range m.Requests[1:] {
		assert.Equal(t, loop.PurposeCompact, r.Purpose, "no main request after the failed compaction")
	}

	res, m = cxRun(t, fixture{script: []fakemodel.Step{over, ptl}}, "auto_compact_failure_ends_run", "false")
	assert.Equal(t, loop.PurposeMain, m.Requests[len(m.Requests)-1].Purpose, "with the rule off the main request goes out")
	assert.NotEqual(t, loop.Completed, res.Terminal)
}
