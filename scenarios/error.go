package scenarios

import (
	"fmt"
	"strings"
)

// Error is one problem with a scenario file, located at the line and
// column where it was found, like a compiler's message:
//
//	library/x.yaml:12:7: script[2].if: condition "tokens > 3": unknown field "tokens" (known: ...)
type Error struct {
	// File is the file's name as it was given to the loader.
	File string
	// Line and Column locate the problem, both from 1. Column is zero
	// when only the line is known (a YAML syntax error), both are zero
	// when the problem is the file as a whole (unreadable, empty).
	Line, Column int
	// Field is the path of the field at fault, as the format spells it:
	// "script[2].tool_uses[0].name", "expect.counters.turns". Empty for
	// the document itself.
	Field string
	// Msg says what is wrong.
	Msg string
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Line > 0 && e.Column > 0 {
		fmt.Fprintf(&b, ":%d", e.Column)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is every problem found in one file, in the order found. The
// loader returns a non-empty ErrorList, never a nil one.
type ErrorList []*Error

// Error implements error: one problem a line.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems, for errors.As on a single [*Error].
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}
