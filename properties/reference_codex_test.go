package properties

import (
	"slices"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
)

// TestRetryLayerFollowsTheOuterLayer checks the reference's outer retry
// layer against docs/profile-codex.md and docs/spec.md §7.7: the API
// layer's retries nested inside the stream retries, a 429 left to the
// outer layer, an overload and a 400 never taken by it.
func TestRetryLayerFollowsTheOuterLayer(t *testing.T) {
	codex := loop.Codex()
	rep := func(k loop.ErrorKind, n int) []loop.ErrorKind { return slices.Repeat([]loop.ErrorKind{k}, n) }
	retries := func(k loop.ErrorKind, n int) []string { return slices.Repeat([]string{"retry " + string(k)}, n) }
	// four API retries, then one of the outer layer, five times over
	var layered []string
	for range codex.StreamRetries {
		layered = append(append(layered, retries(loop.KindServer, codex.APIRetries)...), "stream_retry server_error")
	}
	layered = append(layered, retries(loop.KindServer, codex.APIRetries)...)
	// a non-streaming attempt keeps its own budget after an outer retry
	nonStreaming := loop.Seed()
	nonStreaming.NonStreamingFallback, nonStreaming.NonStreamingRetries, nonStreaming.APIRetries, nonStreaming.StreamRetries = true, 2, 1, 1
	fromAPI := nonStreaming
	fromAPI.NonStreamingRetriesFromAPI, fromAPI.APIRetries = true, 2
	withFallback := codex
	withFallback.Fallback, withFallback.FallbackOn500 = true, true
	tests := []struct {
		name     string
		p        loop.Policy
		failures []loop.ErrorKind
		actions  []string
		failed   loop.ErrorKind
	}{
		{"codex: a 500 forever makes (4+1) x (5+1) = 30 requests", codex, rep(loop.KindServer, 30), layered, loop.KindServer},
		{"codex: 29 500s, then the reply", codex, rep(loop.KindServer, 29), layered, ""},
		{"codex: a 429 only by the outer layer", codex, rep(loop.KindRateLimited, 6),
			slices.Repeat([]string{"stream_retry rate_limited"}, 5), loop.KindRateLimited},
		{"codex: an overload only by the inner layer", codex, rep(loop.KindOverloaded, 5),
			retries(loop.KindOverloaded, 4), loop.KindOverloaded},
		{"codex: a 400 ends the request", codex, rep(loop.KindInvalidRequest, 2), nil, loop.KindInvalidRequest},
		{"codex: a drop by both layers", codex, append(rep(loop.KindConnection, 5), loop.KindStream),
			append(retries(loop.KindConnection, 4), "stream_retry connection", "stream_retry stream_error"), ""},
		{"an outer retry of a non-streaming attempt stays non-streaming, its own budget whole", nonStreaming,
			append([]loop.ErrorKind{loop.KindStream}, rep(loop.KindServer, 6)...),
			append(append([]string{"non_streaming stream_error"}, retries(loop.KindServer, 2)...), append([]string{"stream_retry server_error"}, retries(loop.KindServer, 2)...)...),
			loop.KindServer},
		{"with retries from the API budget, an outer retry gives the whole API budget", fromAPI,
			append([]loop.ErrorKind{loop.KindStream}, rep(loop.KindServer, 5)...),
			append([]string{"non_streaming stream_error", "retry server_error", "stream_retry server_error"}, retries(loop.KindServer, 2)...),
			loop.KindServer},
		{"a fallback starts the outer layer's count again", withFallback,
			append(append(rep(loop.KindRateLimited, 5), loop.KindServer), rep(loop.KindRateLimited, 6)...),
			append(append(slices.Repeat([]string{"stream_retry rate_limited"}, 5), "fallback"), slices.Repeat([]string{"stream_retry rate_limited"}, 5)...),
			loop.KindRateLimited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RetryLayer(tt.p, true, false, tt.failures)
			assert.Equal(t, tt.actions, got.Actions, "actions")
			assert.Equal(t, tt.failed, got.Failed, "failed")
		})
	}
}

// TestDecideFollowsTheCodexProfile checks the reference's decisions for
// docs/profile-codex.md's rules: a cut reply kept as if finished, its
// continuations counted against the stream retries; a 413 retried by
// the outer layer before it overflows; a failed auto-compaction ending
// the turn.
func TestDecideFollowsTheCodexProfile(t *testing.T) {
	codex := loop.Codex()
	env := RefEnv{Compactable: true, Exchanges: 5}
	cut := Happened{Reply: ReplyStreamCut, Output: 10}
	cutTool := Happened{Reply: ReplyStreamCutToolUse, Tools: ToolsOK}
	keptOnly := codex
	keptOnly.StreamRetries = 2
	ccKeeps := loop.ClaudeCode()
	ccKeeps.StreamCutKeepsReply, ccKeeps.StreamRetries = true, 1
	tooLarge := Happened{Reply: ReplyRequestTooLarge, CompactOK: true}
	asAuto := loop.Seed()
	asAuto.ContextCollapse, asAuto.RequestTooLargeAsAuto, asAuto.MinExchangesToCompact, asAuto.MinExchangesToReactiveCompact = false, true, 6, 0
	byReactive := asAuto
	byReactive.RequestTooLargeAsAuto = false
	reactiveMin := byReactive
	reactiveMin.MinExchangesToReactiveCompact = 5
	tests := []struct {
		name string
		p    loop.Policy
		hs   []Happened
		want []string
	}{
		{"codex: cut text continues five times (the stream retries), then fails", codex, repeatHappened(cut, 7),
			append(slices.Repeat([]string{"stream_error_recovery"}, 5), "terminal api_error")},
		{"codex: a cut tool call runs: a tool turn", codex, []Happened{cutTool, cutTool, cut}, []string{"next_turn", "next_turn", "stream_error_recovery"}},
		{"a tool turn resets the count of continuations", keptOnly, []Happened{cut, cutTool, cut, cut, cut},
			[]string{"stream_error_recovery", "next_turn", "stream_error_recovery", "stream_error_recovery", "terminal api_error"}},
		{"a cut tool call with the continuations spent fails", keptOnly, []Happened{cut, cut, cutTool},
			[]string{"stream_error_recovery", "stream_error_recovery", "terminal api_error"}},
		{"claude-code keeping cut replies: a cut tool call runs", ccKeeps, []Happened{cutTool, cut, cut},
			[]string{"next_turn", "stream_error_recovery", "terminal api_error"}},
		{"codex: a 413 forever ends prompt_too_long (no reactive compaction)", codex, []Happened{tooLarge}, []string{"terminal prompt_too_long"}},
		{"a 413 as an auto-compaction needs min_exchanges_to_compact", asAuto, []Happened{tooLarge}, []string{"terminal prompt_too_long"}},
		{"a 413 by the reactive rule needs min_exchanges_to_reactive_compact", byReactive, []Happened{tooLarge}, []string{"reactive_compact_retry"}},
		{"the reactive minimum is met at five exchanges", reactiveMin, []Happened{{Reply: ReplyPromptTooLong, CompactOK: true}}, []string{"reactive_compact_retry"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, playRef(tt.p, env, tt.hs...), "decisions")
		})
	}
	fewer := reactiveMin
	fewer.MinExchangesToReactiveCompact = 6
	assert.Equal(t, []string{"terminal prompt_too_long"}, playRef(fewer, env, Happened{Reply: ReplyPromptTooLong, CompactOK: true}),
		"one exchange short of the reactive minimum")
}

// TestRequestTooLargeMeetsTheOuterLayer: a 413 is sent again by the
// outer layer, then overflows as the reply; an earlier failure that
// ends the request is an API error.
func TestRequestTooLargeMeetsTheOuterLayer(t *testing.T) {
	codex := loop.Codex()
	h := Happened{Reply: ReplyRequestTooLarge}
	res := RetryLayer(codex, false, false, h.Attempts(codex))
	assert.Equal(t, slices.Repeat([]string{"stream_retry request_too_large"}, codex.StreamRetries), res.Actions, "actions")
	assert.True(t, h.IsReplyFailure(res.Failed), "the last 413 is the reply's: %q", res.Failed)
	assert.False(t, Happened{Reply: ReplyPromptTooLong}.IsReplyFailure(loop.KindRequestTooLarge), "a 413 is not a prompt-too-long reply's")
	assert.False(t, h.IsReplyFailure(loop.KindServer), "a 500 is not the 413 reply's")
	spent := Happened{Reply: ReplyRequestTooLarge, Failures: []loop.ErrorKind{loop.KindInvalidRequest}}
	d, _ := Decide(codex, RefEnv{Compactable: true, Exchanges: 5}, NewRefState(), spent)
	assert.Equal(t, loop.APIError, d.Terminal, "a 400 before the 413: %s", d)
}

// TestPreRequestEndsOnAFailedAutoCompaction checks
// auto_compact_failure_ends_run (docs/profile-codex.md): the failure ends
// the run api_error before the request, under the blocking limit too.
func TestPreRequestEndsOnAFailedAutoCompaction(t *testing.T) {
	codex := loop.Codex()
	lim := codex.Limits(model200k)
	s := NewRefState()
	s.Context = lim.AutoCompactThreshold
	env := RefEnv{Limits: lim, Exchanges: 5}
	attempt, end, n := PreRequest(codex, env, s, false)
	assert.Equal(t, CompactFailed, attempt, "attempt")
	assert.Equal(t, loop.APIError, end, "end")
	assert.Equal(t, 1, n.Auto.Failures, "failures")
	attempt, end, _ = PreRequest(codex, env, s, true)
	assert.Equal(t, CompactOK, attempt, "a success")
	assert.Empty(t, end, "a success goes on")
	goesOn := codex
	goesOn.AutoCompactFailureEndsRun = false
	_, end, _ = PreRequest(goesOn, env, s, false)
	assert.Empty(t, end, "without the rule a failure under the blocking limit sends")
}

// TestCutRepliesAreNotReplies: a cut stream has no usage, so it neither
// counts as a reply since the last compaction (the thrash guard) nor
// moves the count the next auto-compaction starts from.
func TestCutRepliesAreNotReplies(t *testing.T) {
	p := loop.ClaudeCode()
	p.StreamCutKeepsReply, p.StreamRetries = true, 3
	s := NewRefState()
	s.Auto.Compacted, s.Context = true, 1_000
	env := RefEnv{Compactable: true, Exchanges: 5}
	d, n := Decide(p, env, s, Happened{Reply: ReplyStreamCutToolUse, Tools: ToolsOK, Context: 150_000})
	assert.Equal(t, loop.NextTurn, d.Transition, "decision")
	assert.Equal(t, 0, n.Auto.RepliesSince, "replies since the compaction")
	assert.Equal(t, 1_000, n.Context, "the count's anchor")
	d, n = Decide(p, env, s, Happened{Reply: ReplyToolUse, Tools: ToolsOK, Context: 150_000})
	assert.Equal(t, loop.NextTurn, d.Transition, "decision")
	assert.Equal(t, 1, n.Auto.RepliesSince, "a reply counts")
	assert.Equal(t, 150_000, n.Context, "a reply anchors the count")
}

// TestCodexScriptsAgree drives the loop through the codex statements
// above and requires the reference's decisions.
func TestCodexScriptsAgree(t *testing.T) {
	codex := loop.Codex()
	env := refEnvFor(codex)
	agreeOnScript(t, codex, env, append([]Happened{{Reply: ReplyStreamCutToolUse, Tools: ToolsOK}}, repeatHappened(Happened{Reply: ReplyStreamCut}, 7)...)...)
	agreeOnScript(t, codex, env, Happened{Reply: ReplyRequestTooLarge})
	agreeOnScript(t, codex, env, Happened{Failures: slices.Repeat([]loop.ErrorKind{loop.KindServer}, 29), Reply: ReplyText, Hook: HookPasses})
	agreeOnScript(t, codex, env, Happened{Failures: slices.Repeat([]loop.ErrorKind{loop.KindRateLimited}, 6), Reply: ReplyText})
	full := Happened{Reply: ReplyToolUse, Tools: ToolsOK, Context: env.Limits.AutoCompactThreshold + 5_000, Output: 1}
	agreeOnScript(t, codex, env, full, full)
}
