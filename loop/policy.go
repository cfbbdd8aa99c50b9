package loop

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/loopsim/loopsim/internal/field"
)

// Policy holds every number and switch of the loop. A profile is a named
// Policy; [Seed] and [ClaudeCode] return the two built-in ones. Field names
// in JSON (and in [Policy.With]) are the snake_case tags.
// A number whose zero is not a quantity but a switch (no cap, never, the
// model's own value) says so in its zero tag, which labels show instead
// of 0.
type Policy struct {
	// Name names the profile the policy came from.
	Name string `json:"name"`

	// ContextWindow replaces the model's context window when non-zero.
	ContextWindow int `json:"context_window" range:"0,100000000" zero:"model's"`
	// SummaryOutputReserve caps the output reserved for a summary: the
	// effective window is the context window minus min(model max output,
	// this).
	SummaryOutputReserve int `json:"summary_output_reserve" range:"0,10000000"`
	// AutoCompactBuffer: auto-compact threshold = effective window - this.
	AutoCompactBuffer int `json:"auto_compact_buffer" range:"0,10000000"`
	// AutoCompactPercent, when non-zero, sets the auto-compact threshold to
	// this percentage of the effective window instead.
	AutoCompactPercent int `json:"auto_compact_percent" range:"0,100" zero:"off"`
	// AutoCompactPercentLowersOnly makes the percentage able only to lower
	// the threshold: the smaller of AutoCompactPercent% of the effective
	// window and the effective window - AutoCompactBuffer.
	AutoCompactPercentLowersOnly bool `json:"auto_compact_percent_lowers_only"`
	// WarningBuffer: warning threshold = auto-compact threshold - this.
	WarningBuffer int `json:"warning_buffer" range:"0,10000000"`
	// BlockingBuffer: blocking limit = effective window - this.
	BlockingBuffer int `json:"blocking_buffer" range:"0,10000000"`
	// DefaultMaxTokens is the output cap of an ordinary request; zero means
	// the model's maximum output.
	DefaultMaxTokens int `json:"default_max_tokens" range:"0,10000000" zero:"model's"`

	// ToolResultBudget caps the total tokens of the tool results in one
	// message; zero switches the cap off.
	ToolResultBudget int `json:"tool_result_budget" range:"0,100000000" zero:"off"`
	// Snip switches snip on: old history is dropped once the count reaches
	// the warning threshold.
	Snip bool `json:"snip"`
	// SnipKeepRecent is how many of the newest messages snip never drops.
	SnipKeepRecent int `json:"snip_keep_recent" range:"1,100000"`
	// Microcompact switches microcompact on.
	Microcompact bool `json:"microcompact"`
	// MicrocompactKeepRecent is how many of the newest tool results
	// microcompact leaves untouched.
	MicrocompactKeepRecent int `json:"microcompact_keep_recent" range:"0,100000"`
	// ContextCollapse switches context collapse on (and auto-compact off).
	ContextCollapse bool `json:"context_collapse"`
	// CollapseStagePercent: collapse stages spans once the count reaches
	// this percentage of the effective window.
	CollapseStagePercent int `json:"collapse_stage_percent" range:"1,100"`
	// CollapseCommitPercent: staged spans are committed once the count
	// reaches this percentage of the effective window.
	CollapseCommitPercent int `json:"collapse_commit_percent" range:"1,100"`
	// CollapseKeepRecent is how many of the newest messages collapse never
	// folds.
	CollapseKeepRecent int `json:"collapse_keep_recent" range:"1,100000"`

	// AutoCompact switches auto-compact on.
	AutoCompact bool `json:"auto_compact"`
	// AutoCompactFailureEndsRun: a failed auto-compaction ends the run
	// (api_error) instead of going on to the main request (codex, as
	// observed: the turn fails once its compaction request cannot be
	// made to fit).
	AutoCompactFailureEndsRun bool `json:"auto_compact_failure_ends_run"`
	// MaxAutoCompactFailures is the circuit breaker: after this many
	// consecutive failures auto-compact stops trying.
	MaxAutoCompactFailures int `json:"max_auto_compact_failures" range:"1,1000"`
	// ReactiveCompact switches reactive compaction on.
	ReactiveCompact bool `json:"reactive_compact"`
	// ReactiveCompactWhenAutoOff: with AutoCompact switched off, reactive
	// compaction still runs after a prompt-too-long or media error (the
	// seed). False switches it off with auto-compact (claude-code, as
	// observed with DISABLE_AUTO_COMPACT=1: no compaction request is made
	// and the overflow ends the run).
	ReactiveCompactWhenAutoOff bool `json:"reactive_compact_when_auto_off"`
	// MaxReactiveCompactsInRow is how many reactive compactions may run
	// before a reset (the seed's hasAttemptedReactiveCompact allows one).
	MaxReactiveCompactsInRow int `json:"max_reactive_compacts_in_row" range:"1,100"`
	// ReactiveOwnsOverflow skips the blocking-limit check when reactive
	// compact and auto-compact are both on (the API's prompt-too-long is
	// left to trigger compaction).
	ReactiveOwnsOverflow bool `json:"reactive_owns_overflow"`
	// MinExchangesToCompact: a conversation with fewer exchanges (API
	// rounds) is not compacted.
	MinExchangesToCompact int `json:"min_exchanges_to_compact" range:"0,1000"`
	// MinExchangesToLaterCompact replaces MinExchangesToCompact for an
	// auto-compaction of a conversation that begins with an earlier
	// compaction's summary (the summary counts as an exchange): 0 in the
	// seed (as its MinExchangesToCompact), 2 in claude-code, as observed
	// (the summary and a single round are compacted).
	MinExchangesToLaterCompact int `json:"min_exchanges_to_later_compact" range:"0,1000"`
	// MinExchangesToReactiveCompact: a conversation with fewer exchanges
	// is not compacted after a prompt-too-long (the withheld error ends
	// the run).
	MinExchangesToReactiveCompact int `json:"min_exchanges_to_reactive_compact" range:"0,1000"`
	// PreserveTailExchanges is how many of the newest exchanges a
	// compaction keeps verbatim (never all of them).
	PreserveTailExchanges int `json:"preserve_tail_exchanges" range:"0,1000"`
	// ReactiveTail is what a reactive compaction keeps verbatim:
	// exchanges (the seed: the newest PreserveTailExchanges rounds, as an
	// auto-compaction), half (the newest rounds until they make up more
	// than half the size of all the rounds, the prompt or summary before
	// them not counted; the oldest round is always summarised) or
	// half_capped (claude-code, as observed: as half, but never more
	// rounds than half keeps of as many rounds of equal size).
	ReactiveTail TailRule `json:"reactive_tail" oneof:"exchanges,half,half_capped"`
	// LaterAutoTail is what an auto-compaction of a conversation that
	// begins with an earlier compaction's summary keeps verbatim: exchanges
	// (the seed: the newest PreserveTailExchanges rounds, as the first),
	// none (the summary and every round are summarised, the newest
	// included) or none_on_rapid_refill (claude-code, as observed: none
	// when the compaction is a rapid refill, RapidRefillWindow replies or
	// fewer after the last one, else exchanges).
	LaterAutoTail TailRule `json:"later_auto_tail" oneof:"exchanges,none,none_on_rapid_refill"`
	// CompactKeepPromptTokens: a compaction keeps the user's own
	// messages (text the user wrote, not tool results or the loop's notes)
	// of the summarised part verbatim, before the summary, the newest
	// first while they fit in this many tokens (codex, as observed: the
	// request after a compaction carries the prompt, then the summary;
	// its source's budget is 20,000 tokens). Zero switches it off: nothing
	// but the summary and the kept tail.
	CompactKeepPromptTokens int `json:"compact_keep_prompt_tokens" range:"0,10000000" zero:"off"`
	// RapidRefillWindow: reaching the threshold again within this many
	// model replies after a compaction is a rapid refill; zero switches the
	// thrash guard off.
	RapidRefillWindow int `json:"rapid_refill_window" range:"0,1000" zero:"off"`
	// RapidRefillTrip: this many consecutive rapid refills end the run with
	// rapid_refill_breaker.
	RapidRefillTrip int `json:"rapid_refill_trip" range:"1,1000"`
	// ReactiveOnlyModels run without threshold or blocking limit; only the
	// API's prompt-too-long triggers compaction.
	ReactiveOnlyModels []string `json:"reactive_only_models"`
	// CompactMaxCalls is how many requests one compaction may make.
	CompactMaxCalls int `json:"compact_max_calls" range:"1,100"`
	// CompactReaskMissingTags: a summary without <summary> tags is asked
	// for again this many times; then the answer is accepted.
	CompactReaskMissingTags int `json:"compact_reask_missing_tags" range:"0,10"`
	// CompactDropOldestOnOverflow: a compaction request that is itself too
	// long drops its oldest exchange and tries again.
	CompactDropOldestOnOverflow bool `json:"compact_drop_oldest_on_overflow"`
	// CompactOverflowResends: with CompactDropOldestOnOverflow, a
	// compaction request refused as prompt-too-long is re-sent unchanged
	// this many times in a row before it is trimmed (claude-code, as
	// observed: once). Zero trims at the first refusal.
	CompactOverflowResends int `json:"compact_overflow_resends" range:"0,10"`
	// CompactOverflowDropsPrompt: with CompactDropOldestOnOverflow, the
	// trim of an overflowing compaction request drops the leading prompt
	// instead of the oldest exchange, a short marker in its place, and
	// gives up the kept tail: every round is summarised, none kept
	// (claude-code, as observed). A later trim drops the oldest exchange.
	CompactOverflowDropsPrompt bool `json:"compact_overflow_drops_prompt"`
	// RequestTooLargeIsMedia treats a 413 like a media-size error
	// (image_error when unrecovered) rather than like prompt-too-long.
	RequestTooLargeIsMedia bool `json:"request_too_large_is_media"`
	// RequestTooLargeAsAuto: a 413 is compacted as an auto-compaction is
	// (only with at least MinExchangesToCompact exchanges, keeping the
	// newest PreserveTailExchanges rounds verbatim; claude-code, as
	// observed: one compaction after two or three tool rounds, none after
	// one, and the next 413 in a row ends the run). False (the seed): as a
	// prompt-too-long is (MinExchangesToReactiveCompact, ReactiveTail).
	RequestTooLargeAsAuto bool `json:"request_too_large_as_auto"`

	// Escalation switches max-output escalation on.
	Escalation bool `json:"escalation"`
	// EscalatedMaxTokens is the raised output cap (never above the model's
	// maximum output).
	EscalatedMaxTokens int `json:"escalated_max_tokens" range:"1,10000000"`
	// EscalateOncePerStretch keeps escalation to one per stretch (between
	// two next_turn); the source lets it fire again after each recovery.
	EscalateOncePerStretch bool `json:"escalate_once_per_stretch"`
	// MaxOutputRecoveries is how many recovery nudges may be sent in a row.
	MaxOutputRecoveries int `json:"max_output_recoveries" range:"0,100"`
	// TruncationExhaustedTerminal is where a truncation ends once the
	// recoveries are used up: completed (the seed: the emitted error ends
	// the loop through the API-error step of the stop branch, which runs
	// the stop-failure hooks) or api_error.
	TruncationExhaustedTerminal Terminal `json:"truncation_exhausted_terminal" oneof:"completed,api_error"`
	// APIErrorTerminal is where an unrecoverable API error ends: completed
	// (the seed: the error becomes an API-error message, the stop branch
	// runs the stop-failure hooks and returns completed) or api_error
	// (claude-code: at once). A thrown failure, one that is not an API
	// answer, ends model_error whatever this says.
	APIErrorTerminal Terminal `json:"api_error_terminal" oneof:"completed,api_error"`

	// TokenBudget switches the token-budget continuation on (it acts only
	// when the run has a budget).
	TokenBudget bool `json:"token_budget"`
	// BudgetCompletionRatio: the budget counts as used up at this fraction.
	BudgetCompletionRatio float64 `json:"budget_completion_ratio" range:"0.01,1"`
	// BudgetDiminishingDelta: deltas under this many tokens count as
	// diminishing returns.
	BudgetDiminishingDelta int `json:"budget_diminishing_delta" range:"0,10000000"`
	// BudgetDiminishingAfter: diminishing returns are judged only after
	// this many continuations.
	BudgetDiminishingAfter int `json:"budget_diminishing_after" range:"0,1000"`

	// Fallback switches the model fallback on (it acts only when the run
	// has a fallback model).
	Fallback bool `json:"fallback"`
	// StopHookBlockCap caps consecutive stop-hook blocks; zero means no cap.
	StopHookBlockCap int `json:"stop_hook_block_cap" range:"0,10000" zero:"off"`
	// StopHookCapAction is where a block over the cap ends: completed
	// (overridden, with a warning) or stop_hook_prevented.
	StopHookCapAction Terminal `json:"stop_hook_cap_action" oneof:"completed,stop_hook_prevented"`
	// StopHookBlocksCountAsTurns makes a stop-hook block a turn (it
	// increments turnCount and is checked against MaxTurns).
	StopHookBlocksCountAsTurns bool `json:"stop_hook_blocks_count_as_turns"`
	// MaxTurns caps turnCount; zero means no cap.
	MaxTurns int `json:"max_turns" range:"0,1000000" zero:"off"`
	// ToolUseSummary switches the asynchronous tool-use summary on (it acts
	// only when the run has a summarizer).
	ToolUseSummary bool `json:"tool_use_summary"`

	// APIRetries is how many times a retryable API failure (429, 500, 529,
	// a dropped connection) is retried.
	APIRetries int `json:"api_retries" range:"0,100"`
	// BackoffBaseMS and BackoffMaxMS shape the delay before retry k:
	// min(base * 2^(k-1), max) ms, times (1 + U[0, BackoffJitter]).
	BackoffBaseMS int `json:"backoff_base_ms" range:"0,3600000"`
	// BackoffMaxMS caps the exponential delay.
	BackoffMaxMS int `json:"backoff_max_ms" range:"0,3600000"`
	// BackoffJitter is the upper bound of the random factor added to 1.
	BackoffJitter float64 `json:"backoff_jitter" range:"0,10"`
	// HonorRetryAfter uses the server's retry-after (times the jitter
	// factor) instead of the exponential delay.
	HonorRetryAfter bool `json:"honor_retry_after"`
	// RateLimitedStreamRetryOnly: a 429 is not retried by the API retry
	// layer (APIRetries), only by the outer one (StreamRetries); codex, as
	// observed: its HTTP layer does not retry a 429.
	RateLimitedStreamRetryOnly bool `json:"rate_limited_stream_retry_only"`
	// StreamRetries is the outer retry layer's budget (docs/spec.md §7.7;
	// codex, as observed: its stream_max_retries around its HTTP
	// layer's request_max_retries): a request whose failure the API
	// retry layer gave up on or does not retry (a 500 or a dropped
	// connection after APIRetries, a 429, a 413, an error event in the
	// stream, any other status but 400) is sent again from the start,
	// after a back-off counted from 1 again, with a fresh APIRetries
	// budget: a 500 forever makes (APIRetries+1) x (StreamRetries+1)
	// requests. A 400 (prompt too long or invalid), an overload and a
	// media error are not retried by it. Zero switches the layer off.
	StreamRetries int `json:"stream_retries" range:"0,100" zero:"off"`
	// FallbackAfter529s: this many consecutive 529s trigger the fallback
	// model; zero never.
	FallbackAfter529s int `json:"fallback_after_529s" range:"0,100" zero:"never"`
	// OverloadedGiveUpAfter: with no fallback model to switch to, this
	// many consecutive 529s end a main request (its retries left unused);
	// zero means only the retry budget does.
	OverloadedGiveUpAfter int `json:"overloaded_give_up_after" range:"0,100" zero:"off"`
	// FallbackOn500: a single 500 triggers the fallback model.
	FallbackOn500 bool `json:"fallback_on_500"`
	// InvalidRequestResends: other 400s are re-sent at once this many times.
	InvalidRequestResends int `json:"invalid_request_resends" range:"0,100"`
	// NonStreamingFallback retries a stream that failed mid-way as one
	// non-streaming request.
	NonStreamingFallback bool `json:"non_streaming_fallback"`
	// NonStreamingOnDrop also gives a dropped connection the
	// non-streaming attempt, once its retries are used up.
	NonStreamingOnDrop bool `json:"non_streaming_on_drop"`
	// NonStreamingOnMidStreamDrop gives the non-streaming attempt, once
	// its retries are used up, to a connection that dropped after the
	// response had begun (a [RequestError] of kind connection with Status
	// 200), not to one that dropped before any response.
	NonStreamingOnMidStreamDrop bool `json:"non_streaming_on_mid_stream_drop"`
	// NonStreamingRetries is the non-streaming attempt's own retry budget
	// for 429, 500, 529 and dropped connections, counted from the switch.
	NonStreamingRetries int `json:"non_streaming_retries" range:"0,100"`
	// NonStreamingRetriesFromAPI makes the non-streaming attempt retry
	// within the streaming attempt's budget instead of NonStreamingRetries:
	// the switch spends one retry of APIRetries, and the non-streaming
	// attempt has what is left (APIRetries - 1 after a switch at once,
	// none after a streaming attempt spent them all); its back-off goes on
	// from the retries spent.
	NonStreamingRetriesFromAPI bool `json:"non_streaming_retries_from_api"`
	// NonStreamingMaxTokens caps max_tokens of a non-streaming retry.
	NonStreamingMaxTokens int `json:"non_streaming_max_tokens" range:"1,10000000"`
	// StreamErrorRecovery: a stream cut by an error event after content
	// is not retried non-streaming. A compaction call fails with it (the
	// compaction fails). Of a main request the blocks that finished
	// are kept as the reply and the loop streams again at the same
	// max_tokens (stream_error_recovery), with a note that the reply was
	// cut off, or error results for its tool_uses (which do not run). Each
	// continuation counts with the truncation recoveries
	// (MaxOutputRecoveries, reset by a tool turn); once they are used up
	// the error ends the run as APIErrorTerminal says. A cut after
	// thinking blocks only keeps nothing (see StreamErrorThinkingResends).
	StreamErrorRecovery bool `json:"stream_error_recovery"`
	// StreamErrorThinkingResends: with StreamErrorRecovery, a stream cut
	// after thinking blocks only is sent again unchanged, streaming, this
	// many times; then the request fails with the error (a main request
	// ends the run as APIErrorTerminal says).
	StreamErrorThinkingResends int `json:"stream_error_thinking_resends" range:"0,100"`
	// StreamCutKeepsReply: with StreamErrorRecovery, a reply cut after
	// content is kept as if it had finished (codex, as observed): its
	// finished tool_uses run and their results are sent (a tool turn,
	// next_turn); text alone is kept and the request streamed again with
	// no note after it (stream_error_recovery). The continuations count
	// against StreamRetries instead of MaxOutputRecoveries.
	StreamCutKeepsReply bool `json:"stream_cut_keeps_reply"`
	// MalformedToolUseRetries: a reply with stop_reason tool_use but no
	// tool_use block is dropped and re-sent this many times; zero treats it
	// as a reply without tools.
	MalformedToolUseRetries int `json:"malformed_tool_use_retries" range:"0,100"`
	// EmptyReplyRetries: an empty reply is re-sent with a nudge this many
	// times, then accepted.
	EmptyReplyRetries int `json:"empty_reply_retries" range:"0,100"`
}

// PolicyError is a policy value outside its allowed range.
type PolicyError struct {
	Field   string
	Value   string
	Allowed string
}

// Error implements error, naming the field, the value and what is allowed.
func (e *PolicyError) Error() string {
	return fmt.Sprintf("policy field %s = %s: allowed %s", e.Field, e.Value, e.Allowed)
}

// fieldRule is one field's allowed values, read once from its tags.
type fieldRule struct {
	index   int
	name    string
	kind    reflect.Kind
	lo, hi  float64
	allowed string // "[lo, hi]" or "one of a,b"
	oneof   []string
}

// policyRules are the tags of Policy, parsed once.
var policyRules = sync.OnceValue(func() []fieldRule {
	t := reflect.TypeOf(Policy{})
	var rules []fieldRule
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if r, ok := f.Tag.Lookup("range"); ok {
			lo, hi, _ := strings.Cut(r, ",")
			l, _ := strconv.ParseFloat(lo, 64)
			h, _ := strconv.ParseFloat(hi, 64)
			rules = append(rules, fieldRule{index: i, name: jsonName(f), kind: f.Type.Kind(), lo: l, hi: h, allowed: "[" + lo + ", " + hi + "]"})
		}
		if o, ok := f.Tag.Lookup("oneof"); ok {
			rules = append(rules, fieldRule{index: i, name: jsonName(f), kind: reflect.String, oneof: strings.Split(o, ","), allowed: "one of " + o})
		}
	}
	return rules
})

// Validate checks every field against its allowed range and returns the
// first violation as a [*PolicyError].
func (p Policy) Validate() error { return p.validate() }

// validate is Validate reading *p in place (Run checks the policy it
// holds, and a Policy is large).
func (p *Policy) validate() error {
	v := reflect.ValueOf(p).Elem()
	rules := policyRules()
	for i := range rules {
		r := &rules[i]
		fv := v.Field(r.index)
		switch {
		case r.oneof != nil:
			if s := fv.String(); !contains(r.oneof, s) {
				return &PolicyError{Field: r.name, Value: strconv.Quote(s), Allowed: r.allowed}
			}
		case r.kind == reflect.Int:
			if n := fv.Int(); float64(n) < r.lo || float64(n) > r.hi {
				return &PolicyError{Field: r.name, Value: strconv.FormatInt(n, 10), Allowed: r.allowed}
			}
		case r.kind == reflect.Float64:
			if x := fv.Float(); !(x >= r.lo && x <= r.hi) {
				return &PolicyError{Field: r.name, Value: strconv.FormatFloat(x, 'g', -1, 64), Allowed: r.allowed}
			}
		}
	}
	if p.CollapseCommitPercent < p.CollapseStagePercent {
		return &PolicyError{Field: "collapse_commit_percent", Value: strconv.Itoa(p.CollapseCommitPercent),
			Allowed: fmt.Sprintf("at least collapse_stage_percent (%d)", p.CollapseStagePercent)}
	}
	for i, m := range p.ReactiveOnlyModels {
		if m == "" {
			return &PolicyError{Field: fmt.Sprintf("reactive_only_models[%d]", i), Value: `""`, Allowed: "a model name"}
		}
	}
	return nil
}

// With returns a copy of p with one field, named by its JSON name, set
// from its text form by internal/field's rule (integers with optional
// underscores, true/false, decimals, terminal names, and comma-separated
// lists for reactive_only_models). The result is validated.
func (p Policy) With(name, value string) (Policy, error) {
	if name == "name" {
		return p, fmt.Errorf("policy field name is the profile's name; it cannot be set (known fields: %s)", strings.Join(PolicyFields(), ", "))
	}
	fv, ok := field.Lookup(reflect.ValueOf(&p).Elem(), name)
	if !ok {
		return p, fmt.Errorf("policy has no field %q (known: %s)", name, strings.Join(PolicyFields(), ", "))
	}
	if err := field.Set(fv, name, value); err != nil {
		return p, fmt.Errorf("policy field %w", err)
	}
	if err := p.Validate(); err != nil {
		return p, err
	}
	return p, nil
}

// PolicyFields lists the JSON names of the policy's settable fields in
// declaration order.
func PolicyFields() []string {
	return slices.DeleteFunc(field.Names(reflect.TypeOf(Policy{})), func(n string) bool { return n == "name" })
}

// jsonName is the name a policy field goes by.
func jsonName(f reflect.StructField) string {
	n, _ := field.Name(f)
	return n
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ModelInfo describes a model the loop may call.
type ModelInfo struct {
	// Name is sent with every request.
	Name string `json:"name"`
	// ContextWindow is the model's window in tokens.
	ContextWindow int `json:"context_window"`
	// MaxOutputTokens is the largest output cap the model accepts.
	MaxOutputTokens int `json:"max_output_tokens"`
}

// Limits are the token thresholds a policy gives for one model.
type Limits struct {
	Window               int `json:"window"`
	EffectiveWindow      int `json:"effective_window"`
	AutoCompactThreshold int `json:"auto_compact_threshold"`
	WarningThreshold     int `json:"warning_threshold"`
	BlockingLimit        int `json:"blocking_limit"`
}

// Limits computes the thresholds of docs/spec.md §6 (and docs/profile-claude-code.md §3) for model m.
func (p Policy) Limits(m ModelInfo) Limits { return p.limits(m) }

// limits is Limits without copying the policy (the loop asks every
// iteration, and a Policy is large).
func (p *Policy) limits(m ModelInfo) Limits {
	w := m.ContextWindow
	if p.ContextWindow > 0 {
		w = p.ContextWindow
	}
	reserve := min(m.MaxOutputTokens, p.SummaryOutputReserve)
	eff := w - reserve
	auto := eff - p.AutoCompactBuffer
	if p.AutoCompactPercent > 0 {
		pct := eff * p.AutoCompactPercent / 100
		if !p.AutoCompactPercentLowersOnly || pct < auto {
			auto = pct
		}
	}
	return Limits{
		Window:               w,
		EffectiveWindow:      eff,
		AutoCompactThreshold: auto,
		WarningThreshold:     auto - p.WarningBuffer,
		BlockingLimit:        eff - p.BlockingBuffer,
	}
}

// MaxTokens is the output cap of an ordinary request to model m.
func (p Policy) MaxTokens(m ModelInfo) int { return p.maxTokens(m) }

// maxTokens is MaxTokens without copying the policy.
func (p *Policy) maxTokens(m ModelInfo) int {
	if p.DefaultMaxTokens > 0 {
		return min(p.DefaultMaxTokens, m.MaxOutputTokens)
	}
	return m.MaxOutputTokens
}

// streamCutBudget is how many continuations after a cut stream a run
// may make in a row: StreamRetries with StreamCutKeepsReply, else
// MaxOutputRecoveries.
func (p *Policy) streamCutBudget() int {
	if p.StreamCutKeepsReply {
		return p.StreamRetries
	}
	return p.MaxOutputRecoveries
}

// reactiveOnly reports whether model runs without threshold or blocking
// limit.
func (p *Policy) reactiveOnly(model string) bool { return contains(p.ReactiveOnlyModels, model) }

// reactiveCompactActive is reactive compaction as it acts: off when the
// user switched auto-compact off and the policy ties the two.
func (p *Policy) reactiveCompactActive() bool {
	return p.ReactiveCompact && (p.AutoCompact || p.ReactiveCompactWhenAutoOff)
}

// autoCompactActive is auto-compact as it acts: off while collapse is on.
func (p *Policy) autoCompactActive() bool { return p.AutoCompact && !p.ContextCollapse }
