package field

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Error is a text that does not read as its field's type.
type Error struct {
	// Path is the field's dotted path; empty when the text was read
	// without a field.
	Path string
	// Text is the text as given.
	Text string
	// Want is what the field takes: "an integer", "a number", ...
	Want string
	// TooLarge: the text is an integer, but beyond what the field's
	// bits hold.
	TooLarge bool
}

// Error implements error: `path: "text" is not want`.
func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%q is not %s", e.Text, e.Want)
	}
	return fmt.Sprintf("%s: %q is not %s", e.Path, e.Text, e.Want)
}

// The types a text is read as, as an [*Error] names them.
const (
	wantInt      = "an integer"
	wantUint     = "a whole number"
	wantFloat    = "a number"
	wantBool     = "true or false"
	wantDuration = "a duration"
)

// ParseInt reads text as an integer of bits bits (64 for an int), by the
// package's rule: decimal, an optional sign, underscores between digits.
func ParseInt(text string, bits int) (int64, error) {
	n, err := strconv.ParseInt(ungroup(strings.TrimSpace(text)), 10, bits)
	if err != nil {
		return 0, intError(text, wantInt, err, bits)
	}
	return n, nil
}

// ParseUint reads text as a whole number of bits bits: decimal, no sign,
// underscores between digits.
func ParseUint(text string, bits int) (uint64, error) {
	n, err := strconv.ParseUint(ungroup(strings.TrimSpace(text)), 10, bits)
	if err != nil {
		return 0, intError(text, wantUint, err, bits)
	}
	return n, nil
}

// intError is the error of a text that does not read as an integer
// field of bits bits, naming its size when the text was a number too
// large for it.
func intError(text, want string, err error, bits int) *Error {
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return &Error{Text: text, Want: fmt.Sprintf("%s of %d bits", want, bits), TooLarge: true}
	}
	return &Error{Text: text, Want: want}
}

// ParseFloat reads text as a number, as [strconv.ParseFloat] does
// (underscores between digits, as in Go's literals).
func ParseFloat(text string) (float64, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil {
		return 0, &Error{Text: text, Want: wantFloat}
	}
	return x, nil
}

// ParseBool reads text as a boolean: true, on or 1; false, off or 0; in
// any case.
func ParseBool(text string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(text)) {
	case "true", "on", "1":
		return true, nil
	case "false", "off", "0":
		return false, nil
	}
	return false, &Error{Text: text, Want: wantBool}
}

// ParseDuration reads text as [time.ParseDuration] does.
func ParseDuration(text string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(text))
	if err != nil {
		return 0, &Error{Text: text, Want: wantDuration}
	}
	return d, nil
}

// ungroup removes the underscores of s that each follow a digit and
// come before the end. If any other underscore is there, s is returned
// as it is, for strconv to refuse. (That a digit follows each underscore
// needs no check here: a text with anything else there does not read as
// an integer either way.)
func ungroup(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	var b strings.Builder
	for i := range len(s) {
		if s[i] != '_' {
			b.WriteByte(s[i])
			continue
		}
		if i == 0 || i == len(s)-1 || !isDigit(s[i-1]) {
			return s
		}
	}
	return b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
