package loop

// ToolUseContext is what the tools and the model call see of the run. It
// may be replaced inside an iteration (model fallback). Cancellation (abort)
// is the context.Context given to [Run].
type ToolUseContext struct {
	// Model is the model requests go to now.
	Model string `json:"model"`
	// Tools are the tool names offered to the model.
	Tools []string `json:"tools,omitempty"`
	// AgentID names the agent running the loop.
	AgentID string `json:"agent_id,omitempty"`
}

// AutoCompactTracking is what the loop remembers after an auto-compact.
type AutoCompactTracking struct {
	// Compacted is true once an auto-compact succeeded.
	Compacted bool `json:"compacted"`
	// TurnID identifies the compaction.
	TurnID string `json:"turn_id,omitempty"`
	// TurnCounter counts tool turns since the compaction.
	TurnCounter int `json:"turn_counter"`
	// ConsecutiveFailures counts auto-compact failures in a row.
	ConsecutiveFailures int `json:"consecutive_failures"`
	// RepliesSinceCompact counts model replies since the compaction (the
	// thrash guard's clock).
	RepliesSinceCompact int `json:"replies_since_compact"`
	// RapidRefills counts consecutive rapid refills.
	RapidRefills int `json:"rapid_refills"`
}

// State is everything the loop carries from one iteration to the next:
// the ten fields of docs/spec.md §1, then the counters the policy's extra guards
// need.
type State struct {
	Messages                     []Message            `json:"-"`
	ToolUseContext               ToolUseContext       `json:"tool_use_context"`
	AutoCompactTracking          *AutoCompactTracking `json:"auto_compact_tracking,omitempty"`
	MaxOutputTokensRecoveryCount int                  `json:"max_output_tokens_recovery_count"`
	HasAttemptedReactiveCompact  bool                 `json:"has_attempted_reactive_compact"`
	// MaxOutputTokensOverride is a one-off output cap for the next request;
	// zero means unset.
	MaxOutputTokensOverride int `json:"max_output_tokens_override,omitempty"`
	// PendingToolUseSummary is the summary of the last tool batch being
	// produced asynchronously.
	PendingToolUseSummary *PendingSummary `json:"-"`
	StopHookActive        bool            `json:"stop_hook_active"`
	TurnCount             int             `json:"turn_count"`
	Transition            Transition      `json:"transition,omitempty"`

	// ReactiveCompactsInRow counts reactive compactions since the last
	// reset (the seed allows one: HasAttemptedReactiveCompact).
	ReactiveCompactsInRow int `json:"reactive_compacts_in_row"`
	// StopHookBlocksInRow counts consecutive stop-hook blocks.
	StopHookBlocksInRow int `json:"stop_hook_blocks_in_row"`
	// EscalatedThisStretch records that escalation fired since the last
	// next_turn (used when the policy keeps escalation to once a stretch).
	EscalatedThisStretch bool `json:"escalated_this_stretch"`
	// MalformedToolUseRetries counts malformed-tool-use retries in a row.
	MalformedToolUseRetries int `json:"malformed_tool_use_retries"`
	// EmptyReplyRetries counts empty-reply resends in a row.
	EmptyReplyRetries int `json:"empty_reply_retries"`
	// StagedCollapses are the spans context collapse has staged.
	StagedCollapses []Span `json:"staged_collapses,omitempty"`
	// Budget tracks the token-budget continuation.
	Budget BudgetTracker `json:"budget"`
}

// Span is a contiguous range of messages, by ID, that context collapse may
// fold into one summary.
type Span struct {
	First string `json:"first"`
	Last  string `json:"last"`
}

// BudgetTracker is the token-budget continuation's memory.
type BudgetTracker struct {
	// Continuations counts budget continuations so far.
	Continuations int `json:"continuations"`
	// LastDelta is the output produced between the last two checks.
	LastDelta int `json:"last_delta"`
	// LastTotal is the total output at the last check.
	LastTotal int `json:"last_total"`
}

// FieldChange is one state field a transition changed.
type FieldChange struct {
	Field string `json:"field"`
	From  string `json:"from"`
	To    string `json:"to"`
}
