package properties

import (
	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"pgregory.net/rapid"
)

// Swarm is the feature set of one generated case (swarm testing: each
// fault kind and each behaviour is switched on or off per case, so a
// case concentrates on a few features and rare combinations get
// exercised). Every switch shrinks to off, so a minimal counterexample
// keeps only the features it needs.
type Swarm struct {
	// Kinds are the step kinds the script may use besides plain replies.
	Kinds []fakemodel.Kind
	// Conditional lets steps branch on the request (fakemodel.Condition).
	Conditional bool
	// Forever lets the last step repeat forever.
	Forever bool
	// Repeat lets steps answer several requests.
	Repeat bool
	// BigInputs lets replies report input sizes at the policy's
	// thresholds (warning, auto-compact, blocking, window).
	BigInputs bool
	// Overflow follows every reply that reports a big input with a
	// prompt-too-long: the context grew, and the API rejects the next
	// request (the path to collapse drains and reactive compactions).
	Overflow bool
	// ToolFaults lets tools fail, panic, deny, prevent or abort.
	ToolFaults bool
	// HookFaults lets stop hooks block, prevent, fail or panic.
	HookFaults bool
	// CompactorFaults lets the scripted compactor fail or panic.
	CompactorFaults bool
	// ModelCompactor leaves compaction to the loop's default compactor,
	// whose summarise requests consume script steps.
	ModelCompactor bool
	// Summarizer configures a tool-use summarizer.
	Summarizer bool
	// FallbackModel configures a fallback model.
	FallbackModel bool
	// TokenBudget gives the run a token budget.
	TokenBudget bool
	// MaxTurns sets the caller's max turns.
	MaxTurns bool
	// LongHistory starts from a long conversation.
	LongHistory bool
}

// faultKinds are the step kinds a swarm can switch on, in the order they
// shrink towards (the first is the simplest).
var faultKinds = []fakemodel.Kind{
	fakemodel.Truncated, fakemodel.PromptTooLong, fakemodel.RequestTooLarge, fakemodel.MediaTooLarge,
	fakemodel.Empty, fakemodel.MalformedToolUse, fakemodel.ImageSize, fakemodel.Overloaded,
	fakemodel.FallbackTriggered, fakemodel.RateLimited, fakemodel.ServerError, fakemodel.ConnectionDropped,
	fakemodel.InvalidRequest, fakemodel.OtherStatus, fakemodel.StreamError, fakemodel.Abort,
}

// SwarmGen draws a [Swarm].
func SwarmGen() *rapid.Generator[Swarm] {
	return rapid.Custom(func(t *rapid.T) Swarm {
		var s Swarm
		for _, k := range faultKinds {
			if rapid.Bool().Draw(t, "kind "+string(k)) {
				s.Kinds = append(s.Kinds, k)
			}
		}
		s.Conditional = rapid.Bool().Draw(t, "conditional")
		s.Forever = rapid.Bool().Draw(t, "forever")
		s.Repeat = rapid.Bool().Draw(t, "repeat")
		s.BigInputs = rapid.Bool().Draw(t, "big inputs")
		s.Overflow = s.BigInputs && rapid.Bool().Draw(t, "overflow")
		s.ToolFaults = rapid.Bool().Draw(t, "tool faults")
		s.HookFaults = rapid.Bool().Draw(t, "hook faults")
		s.CompactorFaults = rapid.Bool().Draw(t, "compactor faults")
		s.ModelCompactor = rapid.Bool().Draw(t, "model compactor")
		s.Summarizer = rapid.Bool().Draw(t, "summarizer")
		s.FallbackModel = rapid.Bool().Draw(t, "fallback model")
		s.TokenBudget = rapid.Bool().Draw(t, "token budget")
		s.MaxTurns = rapid.Bool().Draw(t, "max turns")
		s.LongHistory = rapid.Bool().Draw(t, "long history")
		return s
	})
}

// PolicyGen draws a policy from base swarm-style: each feature switch on
// or off, each number within its valid range (kept small enough to be
// reached by short scripts). The fields in fixedPolicyFields keep base's
// values (the profile's name, the window and its buffers, the caller's
// max turns), each for the reason given there.
func PolicyGen(base loop.Policy) *rapid.Generator[loop.Policy] {
	return rapid.Custom(func(t *rapid.T) loop.Policy {
		p := base
		flip := func(field *bool, name string) {
			*field = rapid.Bool().Draw(t, name)
		}
		num := func(field *int, name string, lo, hi int) {
			*field = rapid.IntRange(lo, hi).Draw(t, name)
		}
		flip(&p.Snip, "snip")
		num(&p.SnipKeepRecent, "snip_keep_recent", 1, 12)
		flip(&p.Microcompact, "microcompact")
		num(&p.MicrocompactKeepRecent, "microcompact_keep_recent", 0, 6)
		flip(&p.ContextCollapse, "context_collapse")
		num(&p.CollapseStagePercent, "collapse_stage_percent", 50, 95)
		num(&p.CollapseCommitPercent, "collapse_commit_percent", p.CollapseStagePercent, 100)
		num(&p.CollapseKeepRecent, "collapse_keep_recent", 1, 12)
		flip(&p.AutoCompact, "auto_compact")
		num(&p.MaxAutoCompactFailures, "max_auto_compact_failures", 1, 4)
		flip(&p.ReactiveCompact, "reactive_compact")
		flip(&p.ReactiveCompactWhenAutoOff, "reactive_compact_when_auto_off")
		num(&p.MaxReactiveCompactsInRow, "max_reactive_compacts_in_row", 1, 3)
		flip(&p.ReactiveOwnsOverflow, "reactive_owns_overflow")
		num(&p.MinExchangesToCompact, "min_exchanges_to_compact", 0, 3)
		num(&p.PreserveTailExchanges, "preserve_tail_exchanges", 0, 3)
		p.ReactiveTail = rapid.SampledFrom([]loop.TailRule{loop.TailExchanges, loop.TailHalf, loop.TailHalfCapped}).Draw(t, "reactive_tail")
		p.LaterAutoTail = rapid.SampledFrom([]loop.TailRule{loop.TailExchanges, loop.TailNone, loop.TailNoneOnRapidRefill}).Draw(t, "later_auto_tail")
		num(&p.RapidRefillWindow, "rapid_refill_window", 0, 3)
		num(&p.RapidRefillTrip, "rapid_refill_trip", 1, 4)
		num(&p.CompactMaxCalls, "compact_max_calls", 1, 4)
		num(&p.CompactReaskMissingTags, "compact_reask_missing_tags", 0, 2)
		flip(&p.CompactDropOldestOnOverflow, "compact_drop_oldest_on_overflow")
		flip(&p.RequestTooLargeIsMedia, "request_too_large_is_media")
		num(&p.ToolResultBudget, "tool_result_budget", 0, 60_000)
		p.DefaultMaxTokens = rapid.SampledFrom([]int{0, 8_000, 32_000}).Draw(t, "default_max_tokens")
		flip(&p.Escalation, "escalation")
		p.EscalatedMaxTokens = rapid.SampledFrom([]int{64_000, 16_000, 200_000}).Draw(t, "escalated_max_tokens")
		flip(&p.EscalateOncePerStretch, "escalate_once_per_stretch")
		num(&p.MaxOutputRecoveries, "max_output_recoveries", 0, 4)
		p.TruncationExhaustedTerminal = rapid.SampledFrom([]loop.Terminal{loop.Completed, loop.APIError}).Draw(t, "truncation_exhausted_terminal")
		p.APIErrorTerminal = rapid.SampledFrom([]loop.Terminal{loop.Completed, loop.APIError}).Draw(t, "api_error_terminal")
		flip(&p.TokenBudget, "token_budget")
		num(&p.BudgetDiminishingAfter, "budget_diminishing_after", 0, 4)
		flip(&p.Fallback, "fallback")
		num(&p.StopHookBlockCap, "stop_hook_block_cap", 0, 9)
		p.StopHookCapAction = rapid.SampledFrom([]loop.Terminal{loop.Completed, loop.StopHookPrevented}).Draw(t, "stop_hook_cap_action")
		flip(&p.StopHookBlocksCountAsTurns, "stop_hook_blocks_count_as_turns")
		flip(&p.ToolUseSummary, "tool_use_summary")
		num(&p.APIRetries, "api_retries", 0, 3)
		num(&p.FallbackAfter529s, "fallback_after_529s", 0, 3)
		flip(&p.FallbackOn500, "fallback_on_500")
		num(&p.InvalidRequestResends, "invalid_request_resends", 0, 2)
		flip(&p.NonStreamingFallback, "non_streaming_fallback")
		flip(&p.StreamErrorRecovery, "stream_error_recovery")
		num(&p.StreamErrorThinkingResends, "stream_error_thinking_resends", 0, 3)
		num(&p.MalformedToolUseRetries, "malformed_tool_use_retries", 0, 3)
		num(&p.EmptyReplyRetries, "empty_reply_retries", 0, 2)
		if rapid.Bool().Draw(t, "reactive-only primary") {
			p.ReactiveOnlyModels = []string{primaryName}
		} else {
			p.ReactiveOnlyModels = nil
		}
		// drawn after the fields above, so that their draws keep their
		// place in rapid's choices
		drawLaterFields(t, &p, flip, num)
		if err := p.Validate(); err != nil {
			t.Fatalf("PolicyGen drew an invalid policy: %v", err)
		}
		return p
	})
}

// fixedField is a policy field PolicyGen leaves at the profile's value,
// and why.
type fixedField struct {
	Field string
	Why   string
}

// fixedPolicyFields are the fields of loop.Policy that PolicyGen does not
// draw, each with the reason it stays at the base profile's value; every
// other field is drawn (TestPolicyGenDrawsEveryField holds the two
// together).
var fixedPolicyFields = []fixedField{
	{"Name", "the profile's name: it labels the policy and decides nothing"},
	{"ContextWindow", "a scale: the cases' models have a 200,000-token window and the generators draw sizes at the policy's thresholds, whatever they are"},
	{"SummaryOutputReserve", "a scale of every threshold, as ContextWindow; the auto-compact threshold moves through AutoCompactPercent, which is drawn"},
	{"AutoCompactBuffer", "a scale: the auto-compact threshold moves through AutoCompactPercent, which is drawn; the buffers keep the profile's order of thresholds"},
	{"WarningBuffer", "a scale: the warning threshold only starts snip and collapse, which are drawn"},
	{"BlockingBuffer", "a scale: the blocking limit keeps its place above the auto-compact threshold; the paths to it are drawn (auto-compact, reactive ownership, reactive-only)"},
	{"MaxTurns", "the caller's setting: drawCase draws it per case (Swarm.MaxTurns), TestReferenceAgreesWithLoop per run"},
}

// drawLaterFields draws the policy fields added to PolicyGen after its
// first version: the later-compaction and compaction-overflow rules, the
// 413's rule, the auto-compact percentage, the budget's ratios, the
// back-off, the outer retry layer and the non-streaming attempt's rules,
// and the kept cut reply.
func drawLaterFields(t *rapid.T, p *loop.Policy, flip func(*bool, string), num func(*int, string, int, int)) {
	flip(&p.AutoCompactFailureEndsRun, "auto_compact_failure_ends_run")
	num(&p.MinExchangesToLaterCompact, "min_exchanges_to_later_compact", 0, 3)
	num(&p.MinExchangesToReactiveCompact, "min_exchanges_to_reactive_compact", 0, 3)
	p.CompactKeepPromptTokens = rapid.SampledFrom([]int{0, 1_000, 20_000}).Draw(t, "compact_keep_prompt_tokens")
	num(&p.CompactOverflowResends, "compact_overflow_resends", 0, 2)
	flip(&p.CompactOverflowDropsPrompt, "compact_overflow_drops_prompt")
	flip(&p.RequestTooLargeAsAuto, "request_too_large_as_auto")
	p.AutoCompactPercent = rapid.SampledFrom([]int{0, 50, 90}).Draw(t, "auto_compact_percent")
	flip(&p.AutoCompactPercentLowersOnly, "auto_compact_percent_lowers_only")
	p.BudgetCompletionRatio = rapid.SampledFrom([]float64{0.9, 0.5, 1}).Draw(t, "budget_completion_ratio")
	// not 0: replies of almost no output would then continue a budget
	// for thousands of iterations, as the policy says, but slowly
	p.BudgetDiminishingDelta = rapid.SampledFrom([]int{500, 100, 5_000}).Draw(t, "budget_diminishing_delta")
	p.BackoffBaseMS = rapid.SampledFrom([]int{500, 0, 200}).Draw(t, "backoff_base_ms")
	p.BackoffMaxMS = rapid.SampledFrom([]int{32_000, 1_000, 3_600_000}).Draw(t, "backoff_max_ms")
	p.BackoffJitter = rapid.SampledFrom([]float64{0.25, 0, 0.1}).Draw(t, "backoff_jitter")
	flip(&p.HonorRetryAfter, "honor_retry_after")
	flip(&p.RateLimitedStreamRetryOnly, "rate_limited_stream_retry_only")
	num(&p.StreamRetries, "stream_retries", 0, 3)
	num(&p.OverloadedGiveUpAfter, "overloaded_give_up_after", 0, 3)
	flip(&p.NonStreamingOnDrop, "non_streaming_on_drop")
	flip(&p.NonStreamingOnMidStreamDrop, "non_streaming_on_mid_stream_drop")
	num(&p.NonStreamingRetries, "non_streaming_retries", 0, 3)
	flip(&p.NonStreamingRetriesFromAPI, "non_streaming_retries_from_api")
	p.NonStreamingMaxTokens = rapid.SampledFrom([]int{64_000, 4_000}).Draw(t, "non_streaming_max_tokens")
	flip(&p.StreamCutKeepsReply, "stream_cut_keeps_reply")
}
