package loop

// Transition is why the loop continued after an iteration
// (state.transition).
type Transition string

// The seed's seven continue transitions, spelled as in the notes, and the
// three the released agent adds.
const (
	// NextTurn: the model used tools, the tools ran; the only transition
	// that is a turn.
	NextTurn Transition = "next_turn"
	// CollapseDrainRetry: prompt-too-long recovered by committing staged
	// context collapses.
	CollapseDrainRetry Transition = "collapse_drain_retry"
	// ReactiveCompactRetry: prompt-too-long or media-too-large recovered by
	// compacting the whole conversation.
	ReactiveCompactRetry Transition = "reactive_compact_retry"
	// MaxOutputTokensEscalate: a truncated reply retried with a raised
	// output cap.
	MaxOutputTokensEscalate Transition = "max_output_tokens_escalate"
	// MaxOutputTokensRecovery: a truncated reply kept and the model nudged
	// to resume.
	MaxOutputTokensRecovery Transition = "max_output_tokens_recovery"
	// StopHookBlocking: a stop hook returned blocking errors that were fed
	// back to the model.
	StopHookBlocking Transition = "stop_hook_blocking"
	// TokenBudgetContinuation: a token budget is not used up; the model is
	// nudged to go on.
	TokenBudgetContinuation Transition = "token_budget_continuation"

	// MalformedToolUseRetry: the reply said stop_reason tool_use but held
	// no tool_use block; it is dropped and the request re-sent with a nudge
	// (claude-code).
	MalformedToolUseRetry Transition = "malformed_tool_use_retry"
	// EmptyReplyRetry: the reply was empty; it is re-sent once with a nudge
	// (claude-code).
	EmptyReplyRetry Transition = "empty_reply_retry"
	// StreamErrorRecovery: the stream was cut by an error event after
	// content; what finished is kept, with a note (or error results for
	// its tool_uses), and the request streamed again (claude-code).
	StreamErrorRecovery Transition = "stream_error_recovery"
)

// Transitions lists every transition in a fixed order.
var Transitions = []Transition{
	NextTurn, CollapseDrainRetry, ReactiveCompactRetry, MaxOutputTokensEscalate,
	MaxOutputTokensRecovery, StopHookBlocking, TokenBudgetContinuation,
	MalformedToolUseRetry, EmptyReplyRetry, StreamErrorRecovery,
}

// Terminal is why the loop returned.
type Terminal string

// The seed's ten terminals, spelled as in the notes, and the three the
// released agent adds.
const (
	BlockingLimit     Terminal = "blocking_limit"
	ModelError        Terminal = "model_error"
	ImageError        Terminal = "image_error"
	AbortedStreaming  Terminal = "aborted_streaming"
	AbortedTools      Terminal = "aborted_tools"
	HookStopped       Terminal = "hook_stopped"
	PromptTooLong     Terminal = "prompt_too_long"
	StopHookPrevented Terminal = "stop_hook_prevented"
	Completed         Terminal = "completed"
	MaxTurns          Terminal = "max_turns"

	// APIError: an API failure with every retry used up (claude-code ends
	// here where the seed runs the stop-failure hooks and says completed).
	APIError Terminal = "api_error"
	// RapidRefillBreaker: auto-compact thrash guard tripped.
	RapidRefillBreaker Terminal = "rapid_refill_breaker"
	// MalformedToolUseExhausted: malformed tool use retried and still
	// malformed.
	MalformedToolUseExhausted Terminal = "malformed_tool_use_exhausted"
)

// Terminals lists every terminal in a fixed order.
var Terminals = []Terminal{
	BlockingLimit, ModelError, ImageError, AbortedStreaming, AbortedTools,
	HookStopped, PromptTooLong, StopHookPrevented, Completed, MaxTurns,
	APIError, RapidRefillBreaker, MalformedToolUseExhausted,
}

// Valid reports whether t is one of [Transitions].
func (t Transition) Valid() bool {
	for _, x := range Transitions {
		if x == t {
			return true
		}
	}
	return false
}

// Valid reports whether t is one of [Terminals].
func (t Terminal) Valid() bool {
	for _, x := range Terminals {
		if x == t {
			return true
		}
	}
	return false
}
