package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"unicode/utf16"
	"unicode/utf8"
)

// TextError is a request body whose text is not what JSON allows: bytes
// that are not UTF-8, or a \u escape that is half of a surrogate pair.
// encoding/json would read both, replacing them with U+FFFD; the APIs
// refuse them.
type TextError struct {
	// Offset is the byte offset of the offending text.
	Offset int
	// Line and Column locate it, from 1 (the column in bytes).
	Line, Column int
	// Problem says what is wrong: "invalid utf-8 encoding", "no low
	// surrogate", "invalid low surrogate".
	Problem string
}

// Error implements error: "PROBLEM in string: line L column C (char O)",
// the JSON parsers' usual words.
func (e *TextError) Error() string {
	return fmt.Sprintf("%s in string: line %d column %d (char %d)", e.Problem, e.Line, e.Column, e.Offset)
}

// CheckText finds the first text in body JSON does not allow (see
// [TextError]); nil when there is none. It does not check that body is
// JSON otherwise.
func CheckText(body []byte) error {
	if at, ok := firstInvalidUTF8(body); ok {
		return textError(body, at, "invalid utf-8 encoding")
	}
	inString := false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(body):
			if body[i+1] != 'u' {
				i++ // an escaped character, maybe a quote
				continue
			}
			r, ok := hex4(body, i+2)
			if !ok {
				continue // not an escape JSON knows: the decoder reports it
			}
			switch {
			case utf16.IsSurrogate(r) && r < 0xDC00: // high: a low must follow
				low, ok := hex4(body, i+8)
				if i+7 >= len(body) || body[i+6] != '\\' || body[i+7] != 'u' || !ok || low < 0xDC00 || low > 0xDFFF {
					return textError(body, i, "no low surrogate")
				}
				i += 11
			case utf16.IsSurrogate(r):
				return textError(body, i, "invalid low surrogate")
			default:
				i += 5
			}
		}
	}
	return nil
}

// hex4 reads four hex digits at body[at:].
func hex4(body []byte, at int) (rune, bool) {
	if at+4 > len(body) {
		return 0, false
	}
	var r rune
	for _, c := range body[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func firstInvalidUTF8(b []byte) (int, bool) {
	if utf8.Valid(b) {
		return 0, false
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i, true
		}
		i += n
	}
	return 0, false
}

func textError(body []byte, at int, problem string) *TextError {
	line, col := 1, 1
	for _, c := range body[:at] {
		col++
		if c == '\n' {
			line, col = line+1, 1
		}
	}
	return &TextError{Offset: at, Line: line, Column: col, Problem: problem}
}

// JSONTypeError reads a JSON value of the wrong type from err (an
// encoding/json decode error): the dotted path of the field as the
// decoder names it (empty for the value decoded itself), and the JSON
// type the field wants: "integer", "number", "string", "boolean",
// "array" or "object". ok is false for any other error.
func JSONTypeError(err error) (field, want string, ok bool) {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Type == nil {
		return "", "", false
	}
	return te.Field, jsonKind(te.Type), true
}

func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return "object"
}
