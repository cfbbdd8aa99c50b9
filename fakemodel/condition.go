package fakemodel

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/loopsim/loopsim/loop"
)

// Condition is a test on a request: Field Op Value, for example
// "max_tokens >= 64000", "purpose == compact", "input_tokens > window" or
// "non_streaming == true". Its text form (see [ParseCondition] and
// [Condition.String]) is also how it reads and writes as JSON.
type Condition struct {
	// Field is one of the Field constants.
	Field string `json:"field"`
	// Op is one of the Op constants.
	Op string `json:"op"`
	// Value is what the field is compared with: a whole number (or
	// [ValueWindow]) for a number field, true or false for non_streaming,
	// main or compact for purpose, any name for model.
	Value string `json:"value"`
}

// The fields a condition can test.
const (
	// FieldPurpose is the request's purpose: main or compact.
	FieldPurpose = "purpose"
	// FieldModel is the request's model name.
	FieldModel = "model"
	// FieldMaxTokens is the request's output cap.
	FieldMaxTokens = "max_tokens"
	// FieldInputTokens is the request's input token count.
	FieldInputTokens = "input_tokens"
	// FieldMessages is the number of messages the request sends.
	FieldMessages = "messages"
	// FieldNonStreaming is whether the request is a non-streaming retry.
	FieldNonStreaming = "non_streaming"
	// FieldRequest is the request's number: 1 for the first request the
	// Model received, counting main and compaction requests alike.
	FieldRequest = "request"
)

// The comparison operators. Text and boolean fields take only == and !=.
const (
	OpEq = "==" // equal
	OpNe = "!=" // not equal
	OpLt = "<"  // less than
	OpLe = "<=" // at most
	OpGt = ">"  // more than
	OpGe = ">=" // at least
)

// ValueWindow, as the value of a number field, stands for the Model's
// Window.
const ValueWindow = "window"

type fieldType int

const (
	numberField fieldType = iota
	textField
	boolField
)

// conditionFields lists the fields in a fixed order, with their types.
var conditionFields = []struct {
	name string
	typ  fieldType
}{
	{FieldPurpose, textField}, {FieldModel, textField}, {FieldMaxTokens, numberField},
	{FieldInputTokens, numberField}, {FieldMessages, numberField},
	{FieldNonStreaming, boolField}, {FieldRequest, numberField},
}

var conditionOps = []string{OpEq, OpNe, OpLt, OpLe, OpGt, OpGe}

func fieldTypeOf(name string) (fieldType, bool) {
	for _, f := range conditionFields {
		if f.name == name {
			return f.typ, true
		}
	}
	return 0, false
}

// ParseCondition reads a condition written "field op value", the three
// parts separated by spaces, and validates it.
func ParseCondition(s string) (Condition, error) {
	parts := strings.Fields(s)
	if len(parts) != 3 {
		return Condition{}, fmt.Errorf("condition %q: want \"field op value\", e.g. \"max_tokens >= 64000\"", s)
	}
	c := Condition{Field: parts[0], Op: parts[1], Value: parts[2]}
	if err := c.Validate(); err != nil {
		return Condition{}, err
	}
	return c, nil
}

// MustCondition is [ParseCondition] for literal scripts: it panics if s is
// not a valid condition.
func MustCondition(s string) *Condition {
	c, err := ParseCondition(s)
	if err != nil {
		panic(err)
	}
	return &c
}

// String returns the condition's text form, "field op value".
func (c Condition) String() string { return c.Field + " " + c.Op + " " + c.Value }

// MarshalText implements encoding.TextMarshaler: the text form.
func (c Condition) MarshalText() ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return []byte(c.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler: it parses and
// validates the text form.
func (c *Condition) UnmarshalText(b []byte) error {
	p, err := ParseCondition(string(b))
	if err != nil {
		return err
	}
	*c = p
	return nil
}

// Validate reports an unknown field or operator, an operator that does not
// apply to the field, or a value of the wrong form.
func (c Condition) Validate() error {
	typ, ok := fieldTypeOf(c.Field)
	if !ok {
		names := make([]string, len(conditionFields))
		for i, f := range conditionFields {
			names[i] = f.name
		}
		return fmt.Errorf("condition %q: unknown field %q (known: %s)", c.String(), c.Field, strings.Join(names, ", "))
	}
	if !contains(conditionOps, c.Op) {
		return fmt.Errorf("condition %q: unknown operator %q (known: %s)", c.String(), c.Op, strings.Join(conditionOps, " "))
	}
	if typ != numberField && c.Op != OpEq && c.Op != OpNe {
		return fmt.Errorf("condition %q: operator %s does not apply to field %q (use == or !=)", c.String(), c.Op, c.Field)
	}
	switch typ {
	case numberField:
		if c.Value != ValueWindow {
			if _, err := strconv.Atoi(c.Value); err != nil {
				return fmt.Errorf("condition %q: field %q needs a whole number or %q, got %q", c.String(), c.Field, ValueWindow, c.Value)
			}
		}
	case boolField:
		if c.Value != "true" && c.Value != "false" {
			return fmt.Errorf("condition %q: field %q needs true or false, got %q", c.String(), c.Field, c.Value)
		}
	case textField:
		if c.Field == FieldPurpose && c.Value != string(loop.PurposeMain) && c.Value != string(loop.PurposeCompact) {
			return fmt.Errorf("condition %q: purpose is %q or %q, got %q", c.String(), loop.PurposeMain, loop.PurposeCompact, c.Value)
		}
		if c.Value == "" {
			return fmt.Errorf("condition %q: empty value", c.String())
		}
	}
	return nil
}

// Eval reports whether the condition holds for req, the number-th request
// the model received; window is what [ValueWindow] stands for.
func (c Condition) Eval(req loop.Request, number, window int) (bool, error) {
	if err := c.Validate(); err != nil {
		return false, err
	}
	typ, _ := fieldTypeOf(c.Field)
	switch typ {
	case textField:
		got := req.Model
		if c.Field == FieldPurpose {
			got = string(req.Purpose)
		}
		return (got == c.Value) == (c.Op == OpEq), nil
	case boolField:
		return (strconv.FormatBool(req.NonStreaming) == c.Value) == (c.Op == OpEq), nil
	}
	want := window
	if c.Value == ValueWindow {
		if window <= 0 {
			return false, fmt.Errorf("condition %q: %q needs the Model's Window to be set", c.String(), ValueWindow)
		}
	} else {
		want, _ = strconv.Atoi(c.Value)
	}
	var got int
	switch c.Field {
	case FieldMaxTokens:
		got = req.MaxTokens
	case FieldInputTokens:
		got = req.InputTokens
	case FieldMessages:
		got = len(req.Messages)
	case FieldRequest:
		got = number
	default:
		return false, errors.New("unreachable: unhandled number field " + c.Field)
	}
	switch c.Op {
	case OpEq:
		return got == want, nil
	case OpNe:
		return got != want, nil
	case OpLt:
		return got < want, nil
	case OpLe:
		return got <= want, nil
	case OpGt:
		return got > want, nil
	}
	return got >= want, nil
}
