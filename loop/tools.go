package loop

import "context"

// ToolCall is one tool_use the loop asks the tools to run.
type ToolCall struct {
	// ID is the tool_use block's id.
	ID string `json:"id"`
	// Name is the tool.
	Name string `json:"name"`
	// Input is the raw JSON input.
	Input string `json:"input"`
	// Index is the block's position in the batch.
	Index int `json:"index"`
}

// ToolOutcome is what running one tool produced.
type ToolOutcome struct {
	// Content is the tool_result text.
	Content string
	// Tokens is the result's size when known; zero means estimate.
	Tokens int
	// IsError marks an error result (including a pre-tool hook's denial).
	IsError bool
	// PreventContinuation is set when a pre- or post-tool hook said the
	// query must not continue; the loop ends hook_stopped after the batch.
	PreventContinuation bool
}

// Tools is the tool-execution seam. Run executes one call; it must return
// promptly once ctx is cancelled (reporting ctx.Err()). An error becomes an
// error tool_result; a panic is recovered and becomes one too.
type Tools interface {
	Run(ctx context.Context, call ToolCall) (ToolOutcome, error)
}

// ConcurrencySafe is optionally implemented by [Tools]: calls it reports
// safe run together with their safe neighbours; the results keep the order
// of the blocks.
type ConcurrencySafe interface {
	ConcurrencySafe(call ToolCall) bool
}
