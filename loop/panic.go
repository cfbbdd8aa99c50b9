package loop

import "fmt"

// PanicError is a panic in a seam (a tool, a hook, a compactor), recovered
// and turned into an error so that the loop goes on.
type PanicError struct {
	// Where names the seam.
	Where string
	// Value is what was passed to panic, formatted.
	Value string
}

// Error implements error.
func (e *PanicError) Error() string { return fmt.Sprintf("%s panicked: %s", e.Where, e.Value) }

func panicError(where string, r any) error {
	return &PanicError{Where: where, Value: fmt.Sprint(r)}
}
