package loop

import "context"

// StopHookInput is what stop hooks see.
type StopHookInput struct {
	// Messages is the history including the reply that wants to stop;
	// valid only during the call (copy it to keep it).
	Messages []Message
	// StopHookActive is true when the previous continue was a stop-hook
	// block.
	StopHookActive bool
	// Turn is the current turn.
	Turn int
}

// StopHookResult is the combined verdict of the stop hooks.
type StopHookResult struct {
	// BlockingErrors are fed back to the model, one meta message each.
	BlockingErrors []string
	// PreventContinuation ends the query with stop_hook_prevented.
	PreventContinuation bool
	// Reason explains a prevention.
	Reason string
}

// StopHooks is the stop-hook seam. An error (or a panic) is a hook failure:
// it is recorded and the loop goes on as if the hooks passed.
type StopHooks interface {
	RunStopHooks(ctx context.Context, in StopHookInput) (StopHookResult, error)
}

// StopFailureInput is what the stop-failure hooks see: the run is about to
// end because its last message is an API error (docs/spec.md §2.5 step 5).
type StopFailureInput struct {
	// Messages is the history ending in the API-error message; valid only
	// during the call (copy it to keep it).
	Messages []Message
	// Error is the API error's text, as the API-error message shows it.
	Error string
	// Turn is the current turn.
	Turn int
}

// StopFailureHooks is the stop-failure hook seam: hooks told that the
// query ends on an API error. They cannot block or continue the loop; an
// error (or a panic) is recorded and the run still ends completed.
type StopFailureHooks interface {
	RunStopFailureHooks(ctx context.Context, in StopFailureInput) error
}
