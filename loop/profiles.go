package loop

import (
	"fmt"
	"strings"
)

// Seed is the profile of the seed notes: every feature the notes describe
// switched on, with the source's numbers (docs/spec.md §6): single-shot reactive
// compact, escalation, token budget, context collapse, no stop-hook block
// cap, no API retry layer.
func Seed() Policy {
	return Policy{
		Name:                        "seed",
		SummaryOutputReserve:        20_000,
		AutoCompactBuffer:           13_000,
		WarningBuffer:               20_000,
		BlockingBuffer:              3_000,
		DefaultMaxTokens:            8_000,
		ToolResultBudget:            50_000,
		Snip:                        true,
		SnipKeepRecent:              10,
		Microcompact:                true,
		MicrocompactKeepRecent:      5,
		ContextCollapse:             true,
		CollapseStagePercent:        80,
		CollapseCommitPercent:       90,
		CollapseKeepRecent:          10,
		AutoCompact:                 true,
		MaxAutoCompactFailures:      3,
		ReactiveCompact:             true,
		ReactiveCompactWhenAutoOff:  true,
		MaxReactiveCompactsInRow:    1,
		ReactiveOwnsOverflow:        true,
		RapidRefillTrip:             3,
		CompactMaxCalls:             1,
		Escalation:                  true,
		EscalatedMaxTokens:          64_000,
		MaxOutputRecoveries:         3,
		TruncationExhaustedTerminal: Completed,
		APIErrorTerminal:            Completed,
		TokenBudget:                 true,
		BudgetCompletionRatio:       0.9,
		BudgetDiminishingDelta:      500,
		BudgetDiminishingAfter:      3,
		Fallback:                    true,
		StopHookCapAction:           Completed,
		ReactiveTail:                TailExchanges,
		LaterAutoTail:               TailExchanges,
		ToolUseSummary:              true,
		BackoffBaseMS:               500,
		BackoffMaxMS:                32_000,
		BackoffJitter:               0.25,
		HonorRetryAfter:             true,
		NonStreamingMaxTokens:       64_000,
		NonStreamingOnDrop:          true,
	}
}

// ClaudeCode is the released agent's policy as observed
// (docs/profile-claude-code.md): no escalation, two reactive compactions in a
// row, a thrash guard, a cap of 8 stop-hook blocks that count as turns,
// api_error for exhausted failures, API retries with back-off and the
// malformed-tool-use and empty-reply retries.
func ClaudeCode() Policy {
	p := Seed()
	p.Name = "claude-code"
	p.DefaultMaxTokens = 0
	p.Snip = false
	p.Microcompact = false
	p.ContextCollapse = false
	p.MaxReactiveCompactsInRow = 2
	p.ReactiveOwnsOverflow = false
	// observed (observed/testdata): auto-compact needs the prompt and two
	// tool rounds, reactive compaction the prompt and one; an
	// auto-compaction keeps the newest round verbatim
	p.MinExchangesToCompact = 3
	p.MinExchangesToReactiveCompact = 2
	// observed (compact-auto-later-one-round): a later auto-compaction
	// runs with the summary and a single round
	p.MinExchangesToLaterCompact = 2
	// observed (compact-off-ptl): with auto-compact off a prompt-too-long
	// is not compacted at all
	p.ReactiveCompactWhenAutoOff = false
	p.PreserveTailExchanges = 1
	// observed (compact-auto-pct-50, -99): the percentage override is of
	// the effective window and only lowers the threshold
	p.AutoCompactPercentLowersOnly = true
	// a reactive compaction keeps about half the rounds (kept after 2, 3,
	// 4, 5, 6, 8, 9, 11 rounds: 1, 2, 3, 3, 4, 5, 5, 6), by size, but no
	// more than for rounds of equal size (compact-reactive-5-rounds-big-*)
	p.ReactiveTail = TailHalfCapped
	// an auto-compaction after an earlier compaction keeps nothing when
	// it is a rapid refill (compact-auto-later, -later-one-round), else
	// the newest round as the first (compact-auto-later-3-apart,
	// -4-apart, compact-auto-refill-later)
	p.LaterAutoTail = TailNoneOnRapidRefill
	p.RapidRefillWindow = 2
	p.RapidRefillTrip = 3
	p.CompactMaxCalls = 8
	p.CompactReaskMissingTags = 1
	p.CompactDropOldestOnOverflow = true
	// observed (compact-request-ptl): an overflowing compaction request is
	// re-sent once unchanged; at the second overflow the prompt is dropped
	// (a marker in its place) and every round summarised, none kept
	p.CompactOverflowResends = 1
	p.CompactOverflowDropsPrompt = true
	p.RequestTooLargeIsMedia = true
	// observed (request-too-large-*): a 413 compacts as an auto-compaction
	p.RequestTooLargeAsAuto = true
	p.Escalation = false
	p.TruncationExhaustedTerminal = APIError
	p.APIErrorTerminal = APIError
	p.TokenBudget = false
	p.StopHookBlockCap = 8
	p.StopHookBlocksCountAsTurns = true
	p.ToolUseSummary = false
	p.APIRetries = 10
	p.FallbackAfter529s = 3
	p.OverloadedGiveUpAfter = 3
	p.FallbackOn500 = true
	p.InvalidRequestResends = 5
	p.NonStreamingFallback = true
	p.NonStreamingOnDrop = false
	// observed (drop-inside-text-*): a drop after the stream began
	// switches once its retries are spent, with none left
	p.NonStreamingOnMidStreamDrop = true
	// observed (stream-error-then-500s*): 1, 3 and 9 non-streaming
	// retries at CLAUDE_CODE_MAX_RETRIES 2, 4 and 10
	p.NonStreamingRetries = 9
	p.NonStreamingRetriesFromAPI = true
	// observed: a stream cut after content keeps it and streams again
	p.StreamErrorRecovery = true
	p.StreamErrorThinkingResends = 2
	p.MalformedToolUseRetries = 2
	p.EmptyReplyRetries = 1
	p.ReactiveOnlyModels = reactiveOnlyCatalog()
	return p
}

// Codex is the released Codex CLI's policy as observed
// (docs/profile-codex.md, observed/testdata/cases/codex): no output
// recovery, no reactive compaction, auto-compaction at a share of the
// window with nothing kept verbatim, and its nested retry layers.
func Codex() Policy {
	p := Seed()
	p.Name = "codex"
	p.DefaultMaxTokens = 0
	p.ToolResultBudget = 0
	p.Snip = false
	p.Microcompact = false
	p.ContextCollapse = false
	p.SummaryOutputReserve = 0
	p.AutoCompactPercent = 90
	p.ReactiveCompact = false
	p.ReactiveCompactWhenAutoOff = false
	p.ReactiveOwnsOverflow = false
	p.Escalation = false
	p.MaxOutputRecoveries = 0
	p.TruncationExhaustedTerminal = APIError
	p.APIErrorTerminal = APIError
	p.TokenBudget = false
	p.Fallback = false
	p.ToolUseSummary = false
	// observed (compact-*): the request after a compaction carries the
	// user's prompt, then the summary; nothing else is kept
	p.PreserveTailExchanges = 0
	p.CompactKeepPromptTokens = 20_000
	// observed (server-error-forever*, rate-limited-*, overloaded-*,
	// drops-forever, request-too-large-forever): two nested layers,
	// request_max_retries 4 inside stream_max_retries 5; a 429 only by
	// the outer, an overload only by the inner; 200 ms doubling, no cap,
	// jitter
	p.APIRetries = 4
	p.StreamRetries = 5
	p.RateLimitedStreamRetryOnly = true
	p.BackoffBaseMS = 200
	p.BackoffMaxMS = 3_600_000
	p.BackoffJitter = 0.1
	p.HonorRetryAfter = true
	p.NonStreamingOnDrop = false
	// observed (stream-error-after-*): a cut reply is kept, its tool
	// calls run, text alone is sent back with no note; the continuations
	// count against the stream retries
	p.StreamErrorRecovery = true
	p.StreamCutKeepsReply = true
	// observed (compact-overflows): an overflowing compaction request
	// is made again with its oldest part dropped until nothing is left,
	// then the turn fails
	p.CompactDropOldestOnOverflow = true
	p.CompactMaxCalls = 100
	p.AutoCompactFailureEndsRun = true
	return p
}

// Profiles lists the built-in profile names.
func Profiles() []string { return []string{"seed", "claude-code", "codex"} }

// Profile returns the built-in profile with that name.
func Profile(name string) (Policy, error) {
	switch name {
	case "seed":
		return Seed(), nil
	case "claude-code":
		return ClaudeCode(), nil
	case "codex":
		return Codex(), nil
	}
	return Policy{}, fmt.Errorf("unknown profile %q (known: %s)", name, strings.Join(Profiles(), ", "))
}
