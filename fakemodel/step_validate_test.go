package fakemodel

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// Every content or fault field a step sets is named when the step's kind
// does not take it, and a branch step refuses each of them.
func TestStepNamesEveryFieldItDoesNotTake(t *testing.T) {
	for _, c := range []struct {
		field string
		set   func(*Step)
	}{
		{"text", func(s *Step) { s.Text = "x" }},
		{"thinking", func(s *Step) { s.Thinking = "x" }},
		{"tool_uses", func(s *Step) { s.ToolUses = []ToolUse{{Name: "Read"}} }},
		{"stop", func(s *Step) { s.Stop = loop.StopEndTurn }},
		{"output_tokens", func(s *Step) { s.OutputTokens = 1 }},
		{"input_tokens", func(s *Step) { s.InputTokens = 1 }},
		{"maximum", func(s *Step) { s.Maximum = 1 }},
		{"status", func(s *Step) { s.Status = 500 }},
		{"retry_after_ms", func(s *Step) { s.RetryAfterMS = 1 }},
		{"after", func(s *Step) { s.After = 1 }},
	} {
		// thrown takes only a message
		s := Step{Kind: Thrown}
		c.set(&s)
		assert.ErrorContains(t, s.Validate(), "field "+c.field+` does not apply to kind "thrown"`, c.field)
		b := Step{If: MustCondition("purpose == main"), Then: &Step{Text: "a"}, Else: &Step{Text: "b"}}
		c.set(&b)
		assert.ErrorContains(t, b.Validate(), "a branch step (if) sets only then and else, not "+c.field, c.field)
	}
}

// Repeat and the statuses accept the ends of their ranges and nothing
// past them.
func TestStepFiguresAtTheirBounds(t *testing.T) {
	for _, c := range []struct {
		step Step
		want string // "" means valid
	}{
		{Step{Text: "x", Repeat: MaxRepeat}, ""},
		{Step{Text: "x", Repeat: MaxRepeat + 1}, "repeat 1000001 is above 1000000 (MaxRepeat)"},
		{Step{Kind: ServerError, Status: 500}, ""},
		{Step{Kind: ServerError, Status: 599}, ""},
		{Step{Kind: ServerError, Status: 499}, "status 499 of a server_error must be 5xx"},
		{Step{Kind: ServerError, Status: 600}, "status 600 of a server_error must be 5xx"},
		{Step{Kind: OtherStatus, Status: 400}, ""},
		{Step{Kind: OtherStatus, Status: 599}, ""},
		{Step{Kind: OtherStatus, Status: 399}, "between 400 and 599, got 399"},
		{Step{Kind: OtherStatus, Status: 600}, "between 400 and 599, got 600"},
	} {
		err := c.step.Validate()
		if c.want == "" {
			assert.NoError(t, err, "%+v", c.step)
		} else {
			assert.ErrorContains(t, err, c.want, "%+v", c.step)
		}
	}
}

// A tool_use input must be a JSON object (null is not one); the error
// quotes an input of up to 40 characters whole and a longer one by its
// first 37 and an ellipsis.
func TestToolUseInputIsAJSONObject(t *testing.T) {
	for _, in := range []string{"null", "[1]", `"x"`, "3", `{"a":`} {
		assert.ErrorContains(t, ToolUse{Name: "R", Input: in}.ValidateInput(), "is not a JSON object", "input %s", in)
	}
	assert.NoError(t, ToolUse{Name: "R", Input: `{"a":null}`}.ValidateInput())
	assert.NoError(t, ToolUse{Name: "R"}.ValidateInput(), "empty stands for {}")

	forty := "[" + strings.Repeat("1", 38) + "]"
	require.Len(t, forty, 40)
	assert.EqualError(t, ToolUse{Name: "R", Input: forty}.ValidateInput(), `input "`+forty+`" is not a JSON object`)
	fortyOne := "[" + strings.Repeat("1", 39) + "]"
	assert.EqualError(t, ToolUse{Name: "R", Input: fortyOne}.ValidateInput(), `input "`+fortyOne[:37]+`..." is not a JSON object`)
}

// A reply's tool inputs are stated whole; a truncated step's last one may
// be stated cut (the output cap stops inside it), earlier ones not; a
// stream that fails may stop inside one.
func TestWhichStepsTakeACutInput(t *testing.T) {
	cut := []ToolUse{{Name: "Write", Input: `{"path":"a.g`}}
	assert.ErrorContains(t, Step{ToolUses: cut}.Validate(), "tool_uses[0]: input", "a reply")
	assert.NoError(t, Step{Kind: Truncated, ToolUses: cut}.Validate(), "a truncated step's last tool_use")
	assert.ErrorContains(t, Step{Kind: Truncated, ToolUses: append(cut, ToolUse{Name: "Read"})}.Validate(), "tool_uses[0]: input",
		"a truncated step's earlier tool_use")
	for _, k := range []Kind{StreamError, ConnectionDropped, FallbackTriggered, Abort} {
		assert.NoError(t, Step{Kind: k, ToolUses: cut, After: 1}.Validate(), "kind %s", k)
	}
}
