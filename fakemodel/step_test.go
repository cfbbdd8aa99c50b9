package fakemodel

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStepValidate(t *testing.T) {
	cond := MustCondition("purpose == compact")
	for _, tc := range []struct {
		step Step
		want string // "" means valid
	}{
		{Step{Text: "hi"}, ""},
		{Step{Kind: Empty}, ""},
		{Step{Kind: OtherStatus, Status: 418}, ""},
		{Step{Kind: RateLimited, RetryAfterMS: 100, Repeat: 3}, ""},
		{Step{If: cond, Then: &Step{Text: "a"}, Else: &Step{Kind: Overloaded}, Repeat: Forever}, ""},
		{Step{}, "a reply needs text"},
		{Step{Kind: "teapot"}, `unknown kind "teapot"`},
		{Step{ToolUses: []ToolUse{{}}}, "tool_uses[0] has no name"},
		{Step{Kind: PromptTooLong, Message: "x"}, `field message does not apply to kind "prompt_too_long"`},
		{Step{Kind: Overloaded, Text: "x"}, "field text does not apply"},
		{Step{Kind: MalformedToolUse, ToolUses: []ToolUse{{Name: "R"}}}, "field tool_uses does not apply"},
		{Step{Text: "x", Stop: "paused"}, `stop "paused"`},
		{Step{Text: "x", OutputTokens: -1}, "output_tokens -1 is negative"},
		{Step{Kind: ServerError, Status: 404}, "must be 5xx"},
		{Step{Kind: OtherStatus}, "needs an error status"},
		{Step{Text: "x", Repeat: -2}, "repeat -2"},
		{Step{If: cond, Then: &Step{Text: "a"}}, "needs both then and else"},
		{Step{If: cond, Text: "a", Then: &Step{Text: "a"}, Else: &Step{Text: "b"}}, "sets only then and else, not text"},
		{Step{If: cond, Then: &Step{Text: "a", Repeat: 2}, Else: &Step{Text: "b"}}, "then: repeat applies to a script step"},
		{Step{If: cond, Then: &Step{Text: "a"}, Else: &Step{}}, "else: a reply needs text"},
		{Step{If: &Condition{Field: "colour", Op: "==", Value: "red"}, Then: &Step{Text: "a"}, Else: &Step{Text: "b"}}, `if: condition "colour == red": unknown field "colour"`},
		{Step{Text: "a", Then: &Step{Text: "a"}}, "then and else need an if"},
	} {
		err := tc.step.Validate()
		if tc.want == "" {
			assert.NoError(t, err, "%+v", tc.step)
		} else {
			assert.ErrorContains(t, err, tc.want, "%+v", tc.step)
		}
	}
}

func TestValidateScript(t *testing.T) {
	err := ValidateScript([]Step{{Text: "a", Repeat: Forever}, {Text: "b"}, {Kind: "nope"}})
	var se *StepError
	require.ErrorAs(t, err, &se)
	for _, want := range []string{"script step 1: unreachable: step 0 repeats forever", `script step 2: unknown kind "nope"`} {
		assert.ErrorContains(t, err, want)
	}
	assert.NoError(t, ValidateScript([]Step{{Text: "a"}, {Kind: Overloaded, Repeat: Forever}}), "valid script")
}

// Steps read from and write to JSON with snake_case names, a condition as
// its text form.
func TestStepJSON(t *testing.T) {
	src := `[
		{"tool_uses": [{"name": "Read", "input": "{}"}]},
		{"kind": "prompt_too_long"},
		{"if": "max_tokens >= 64000", "then": {"text": "ok"}, "else": {"kind": "truncated"}, "repeat": -1}
	]`
	var script []Step
	require.NoError(t, json.Unmarshal([]byte(src), &script))
	want := []Step{
		{ToolUses: []ToolUse{{Name: "Read", Input: "{}"}}},
		{Kind: PromptTooLong},
		{If: &Condition{Field: "max_tokens", Op: ">=", Value: "64000"}, Then: &Step{Text: "ok"}, Else: &Step{Kind: Truncated}, Repeat: Forever},
	}
	require.Equal(t, want, script, "decoded")
	require.NoError(t, ValidateScript(script))
	out, err := json.Marshal(script[2])
	if assert.NoError(t, err, "encoded") {
		assert.Contains(t, string(out), `"if":"max_tokens \u003e= 64000"`, "encoded")
	}
	assert.ErrorContains(t, json.Unmarshal([]byte(`{"if": "max_tokens => 1"}`), new(Step)), "unknown operator", "bad condition in JSON")
}

func TestKindsAreComplete(t *testing.T) {
	require.Len(t, allowedFields, len(Kinds), "allowedFields has an entry for each of the Kinds")
	for _, k := range Kinds {
		assert.Contains(t, allowedFields, k, "kind %q has no allowed fields", k)
	}
	// every loop.ErrorKind can be scripted
	made := map[loop.ErrorKind]bool{}
	for _, k := range Kinds {
		s := Step{Kind: k}
		switch k {
		case Reply:
			s.Text = "x"
		case OtherStatus:
			s.Status = 599
		case Abort:
			continue
		}
		p, err := play(s, req(10), 1, 5)
		require.NoError(t, err)
		var re *loop.RequestError
		if errors.As(p.err, &re) {
			made[re.Kind] = true
		}
	}
	for _, k := range loop.ErrorKinds {
		assert.True(t, made[k], "no step kind produces %s", k)
	}
}
