package loop

// EventKind names an event type; it is the "kind" field of the JSON form.
type EventKind string

// The event kinds, in the order they can appear within an iteration.
const (
	KindIterationStart EventKind = "iteration_start"
	KindStage          EventKind = "stage"
	KindCompaction     EventKind = "compaction"
	KindRequest        EventKind = "request"
	KindResponse       EventKind = "response"
	KindRequestFailed  EventKind = "request_failed"
	KindRetry          EventKind = "retry"
	KindFallback       EventKind = "fallback"
	KindWithheld       EventKind = "withheld"
	KindErrorEmitted   EventKind = "error_emitted"
	KindNotice         EventKind = "notice"
	KindToolSummary    EventKind = "tool_use_summary"
	KindToolBatch      EventKind = "tool_batch"
	KindToolResult     EventKind = "tool_result"
	KindStopHook       EventKind = "stop_hook"
	KindStopFailure    EventKind = "stop_failure_hook"
	KindTransition     EventKind = "transition"
	KindState          EventKind = "state"
	KindTerminal       EventKind = "terminal"
)

// Event is one decision of the loop. The concrete types are the structs
// of this file; a trace is the ordered list of them.
type Event interface {
	EventKind() EventKind
}

// IterationStart opens an iteration.
type IterationStart struct {
	Iteration int `json:"iteration"`
	Turn      int `json:"turn"`
	// Messages is the history length at the start.
	Messages int `json:"messages"`
}

// StageName names a message-preparation stage.
type StageName string

// The preparation stages, in pipeline order, and the drain.
const (
	// StageBoundary drops what precedes the last compact boundary.
	StageBoundary         StageName = "compact_boundary"
	StageToolResultBudget StageName = "tool_result_budget"
	StageSnip             StageName = "snip"
	StageMicrocompact     StageName = "microcompact"
	StageCollapse         StageName = "collapse"
	StageCollapseDrain    StageName = "collapse_drain"
)

// Stage is one preparation stage that changed something.
type Stage struct {
	Stage        StageName `json:"stage"`
	TokensBefore int       `json:"tokens_before"`
	TokensAfter  int       `json:"tokens_after"`
	// TokensFreed is what snip reports the count cannot see.
	TokensFreed int `json:"tokens_freed,omitempty"`
	// Changed counts the blocks (budget, microcompact) or spans (collapse)
	// changed.
	Changed int `json:"changed,omitempty"`
	// Staged counts the collapse spans staged after the stage.
	Staged int `json:"staged,omitempty"`
	// Removed lists the IDs of messages that left the history.
	Removed []string `json:"removed,omitempty"`
	// Error is a panic in the stage's seam; the stage then changed nothing.
	Error string `json:"error,omitempty"`
}

// Compaction is an auto or reactive compaction, attempted or skipped.
type Compaction struct {
	Trigger      CompactTrigger `json:"trigger"`
	OK           bool           `json:"ok"`
	TokensBefore int            `json:"tokens_before"`
	TokensAfter  int            `json:"tokens_after"`
	// Threshold is the auto-compact threshold that was reached.
	Threshold int `json:"threshold,omitempty"`
	// Removed lists the IDs of messages that left the history.
	Removed []string `json:"removed,omitempty"`
	// Kept counts the messages kept verbatim after the summary.
	Kept int `json:"kept,omitempty"`
	// Failures is the consecutive auto-compact failure count after it.
	Failures int `json:"failures,omitempty"`
	// RapidRefill is the consecutive rapid-refill count, if this is one.
	RapidRefill int `json:"rapid_refill,omitempty"`
	// Skipped says why a due compaction did not run.
	Skipped string `json:"skipped,omitempty"`
	// Error is why it failed.
	Error string `json:"error,omitempty"`
}

// RequestEvent is a request sent to the model (every attempt).
type RequestEvent struct {
	Purpose      Purpose `json:"purpose"`
	Model        string  `json:"model"`
	InputTokens  int     `json:"input_tokens"`
	MaxTokens    int     `json:"max_tokens"`
	Messages     int     `json:"messages"`
	Last         string  `json:"last"`
	Attempt      int     `json:"attempt"`
	NonStreaming bool    `json:"non_streaming,omitempty"`
}

// ResponseEvent is a response that ended normally.
type ResponseEvent struct {
	Purpose    Purpose    `json:"purpose"`
	StopReason StopReason `json:"stop_reason"`
	Usage      Usage      `json:"usage"`
	Blocks     int        `json:"blocks"`
	ToolUses   []string   `json:"tool_uses,omitempty"`
}

// RequestFailed is a request that failed.
type RequestFailed struct {
	Purpose Purpose   `json:"purpose"`
	Kind    ErrorKind `json:"error_kind"`
	Status  int       `json:"status,omitempty"`
	Message string    `json:"message"`
	// Blocks counts the blocks received before the failure.
	Blocks int `json:"blocks,omitempty"`
}

// Retry is the retry layer deciding to send again, after a simulated
// delay.
type Retry struct {
	Attempt int       `json:"attempt"`
	Reason  ErrorKind `json:"reason"`
	DelayMS int       `json:"delay_ms"`
	// NonStreaming marks the switch to a non-streaming attempt.
	NonStreaming bool `json:"non_streaming,omitempty"`
	// StreamRetry marks a retry of the outer layer (Policy.StreamRetries):
	// the request sent again from the start with a fresh API retry budget.
	StreamRetry bool `json:"stream_retry,omitempty"`
}

// Fallback is the switch to the fallback model.
type Fallback struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Orphans lists tool_use IDs given synthetic results by the switch.
	Orphans []string `json:"orphans,omitempty"`
	// Dropped is the ID of the partial reply the switch discards, if the
	// failed request had streamed any content.
	Dropped string `json:"dropped,omitempty"`
}

// WithheldKind names what was withheld.
type WithheldKind string

// Withheld error kinds.
const (
	WithheldPromptTooLong WithheldKind = "prompt_too_long"
	WithheldMedia         WithheldKind = "media_too_large"
	WithheldMaxOutput     WithheldKind = "max_output_tokens"
)

// Withheld is an error recorded but not yet emitted.
type Withheld struct {
	Kind    WithheldKind `json:"error_kind"`
	Message string       `json:"message"`
}

// ErrorEmitted is an error shown as an assistant API-error message.
type ErrorEmitted struct {
	Message string `json:"message"`
}

// Notice is a message for the user (switched model, interrupted, max
// turns, block cap overridden).
type Notice struct {
	Text string `json:"text"`
}

// ToolSummary is the previous iteration's tool-use summary, emitted; or,
// with Unsent, a summary still pending when the run ended, which no
// iteration emitted (its text and error are then left out: they may
// depend on how a summarizer raced an abort).
type ToolSummary struct {
	Text  string `json:"text,omitempty"`
	Error string `json:"error,omitempty"`
	// Batch are the tool_use IDs of the batch summarised.
	Batch []string `json:"batch,omitempty"`
	// Unsent marks a summary the run ended before emitting.
	Unsent bool `json:"unsent,omitempty"`
}

// ToolBatch is the set of tool_use blocks about to run.
type ToolBatch struct {
	ToolUses []string `json:"tool_uses"`
}

// ToolResultEvent is one tool_result added to the history.
type ToolResultEvent struct {
	ToolUseID string `json:"tool_use_id"`
	Name      string `json:"name,omitempty"`
	// Synthetic marks a result the loop made up (interrupted, fallback,
	// model error).
	Synthetic bool `json:"synthetic,omitempty"`
	IsError   bool `json:"is_error,omitempty"`
	Tokens    int  `json:"tokens"`
	// Prevent marks a tool hook that asked to stop the query.
	Prevent bool `json:"prevent,omitempty"`
	// Error is the tool's error or panic.
	Error string `json:"error,omitempty"`
	// InputError marks the result of a tool_use whose input is not valid
	// JSON (an output cap or a cut stream stopped inside it): the tool did
	// not run and the result says its input could not be read.
	InputError bool `json:"input_error,omitempty"`
}

// HookOutcome is what the stop hooks decided.
type HookOutcome string

// Stop-hook outcomes.
const (
	HookPass        HookOutcome = "pass"
	HookBlock       HookOutcome = "block"
	HookPrevent     HookOutcome = "prevent"
	HookFail        HookOutcome = "fail"
	HookCapOverride HookOutcome = "cap_override"
)

// StopHook is one run of the stop hooks.
type StopHook struct {
	Outcome        HookOutcome `json:"outcome"`
	StopHookActive bool        `json:"stop_hook_active"`
	Messages       []string    `json:"messages,omitempty"`
	Error          string      `json:"error,omitempty"`
	// BlocksInRow is the consecutive block count after this run.
	BlocksInRow int `json:"blocks_in_row,omitempty"`
}

// StopFailureHook is docs/spec.md §2.5 step 5: the last message is an API error,
// the stop-failure hooks are told it, and the run completes.
type StopFailureHook struct {
	// Error is the API error the hooks were told.
	Error string `json:"error"`
	// Ran is false when the run has no stop-failure hooks.
	Ran bool `json:"ran"`
	// Failure is the hooks' own error or panic.
	Failure string `json:"failure,omitempty"`
}

// TransitionEvent is the loop continuing, with the state fields it
// changed.
type TransitionEvent struct {
	Transition Transition    `json:"transition"`
	Changes    []FieldChange `json:"changes,omitempty"`
	// Dropped is the ID of the reply this continue discards (escalation,
	// malformed tool use, empty reply): it never enters the history.
	Dropped string `json:"dropped,omitempty"`
}

// TerminalEvent is the loop returning.
type TerminalEvent struct {
	Terminal   Terminal `json:"terminal"`
	Turn       int      `json:"turn"`
	Iterations int      `json:"iterations"`
	Message    string   `json:"message,omitempty"`
}

// EventKind implements [Event].
func (IterationStart) EventKind() EventKind { return KindIterationStart }

// EventKind implements [Event].
func (Stage) EventKind() EventKind { return KindStage }

// EventKind implements [Event].
func (Compaction) EventKind() EventKind { return KindCompaction }

// EventKind implements [Event].
func (RequestEvent) EventKind() EventKind { return KindRequest }

// EventKind implements [Event].
func (ResponseEvent) EventKind() EventKind { return KindResponse }

// EventKind implements [Event].
func (RequestFailed) EventKind() EventKind { return KindRequestFailed }

// EventKind implements [Event].
func (Retry) EventKind() EventKind { return KindRetry }

// EventKind implements [Event].
func (Fallback) EventKind() EventKind { return KindFallback }

// EventKind implements [Event].
func (Withheld) EventKind() EventKind { return KindWithheld }

// EventKind implements [Event].
func (ErrorEmitted) EventKind() EventKind { return KindErrorEmitted }

// EventKind implements [Event].
func (Notice) EventKind() EventKind { return KindNotice }

// EventKind implements [Event].
func (ToolSummary) EventKind() EventKind { return KindToolSummary }

// EventKind implements [Event].
func (ToolBatch) EventKind() EventKind { return KindToolBatch }

// EventKind implements [Event].
func (ToolResultEvent) EventKind() EventKind { return KindToolResult }

// EventKind implements [Event].
func (StopHook) EventKind() EventKind { return KindStopHook }

// EventKind implements [Event].
func (StopFailureHook) EventKind() EventKind { return KindStopFailure }

// EventKind implements [Event].
func (TransitionEvent) EventKind() EventKind { return KindTransition }

// EventKind implements [Event].
func (TerminalEvent) EventKind() EventKind { return KindTerminal }

// newEvent returns a pointer to a zero event of kind k, for decoding.
func newEvent(k EventKind) (Event, bool) {
	switch k {
	case KindIterationStart:
		return &IterationStart{}, true
	case KindStage:
		return &Stage{}, true
	case KindCompaction:
		return &Compaction{}, true
	case KindRequest:
		return &RequestEvent{}, true
	case KindResponse:
		return &ResponseEvent{}, true
	case KindRequestFailed:
		return &RequestFailed{}, true
	case KindRetry:
		return &Retry{}, true
	case KindFallback:
		return &Fallback{}, true
	case KindWithheld:
		return &Withheld{}, true
	case KindErrorEmitted:
		return &ErrorEmitted{}, true
	case KindNotice:
		return &Notice{}, true
	case KindToolSummary:
		return &ToolSummary{}, true
	case KindToolBatch:
		return &ToolBatch{}, true
	case KindToolResult:
		return &ToolResultEvent{}, true
	case KindStopHook:
		return &StopHook{}, true
	case KindStopFailure:
		return &StopFailureHook{}, true
	case KindTransition:
		return &TransitionEvent{}, true
	case KindState:
		return &StateRecord{}, true
	case KindTerminal:
		return &TerminalEvent{}, true
	}
	return nil, false
}
