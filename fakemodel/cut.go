package fakemodel

import "github.com/loopsim/loopsim/loop"

// CutError is a stream failure (a dropped connection, an error event)
// inside a block: the block's start and part of it were streamed, its
// end never came. It unwraps to the failure, so the loop sees only that
// (an unfinished block is not part of a reply); a wire server sends the
// cut block ([CutError.CutBlock]) before it fails.
type CutError struct {
	// Err is the failure.
	Err *loop.RequestError
	// Block is the block cut open, as far as it was streamed.
	Block loop.Block
}

// Error is the failure's message.
func (e *CutError) Error() string { return e.Err.Error() }

// Unwrap returns the failure.
func (e *CutError) Unwrap() error { return e.Err }

// CutBlock is the block cut open.
func (e *CutError) CutBlock() loop.Block { return e.Block }
