package fakemodel

import (
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
)

func TestParseCondition(t *testing.T) {
	for _, tc := range []struct {
		in, err string
	}{
		{"max_tokens >= 64000", ""},
		{"input_tokens > window", ""},
		{"purpose == compact", ""},
		{"model != fallback-model", ""},
		{"non_streaming == true", ""},
		{"request <= 3", ""},
		{"messages < 10", ""},
		{"max_tokens >= ", `want "field op value"`},
		{"maxtokens >= 1", `unknown field "maxtokens" (known: purpose, model, max_tokens`},
		{"max_tokens => 1", `unknown operator "=>"`},
		{"model < b", "operator < does not apply to field \"model\""},
		{"max_tokens >= lots", `needs a whole number or "window"`},
		{"non_streaming == yes", "needs true or false"},
		{"purpose == summary", `purpose is "main" or "compact"`},
	} {
		c, err := ParseCondition(tc.in)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, "%q", tc.in)
		} else if assert.NoError(t, err, "%q", tc.in) {
			assert.Equal(t, tc.in, c.String(), "%q: String()", tc.in)
		}
	}
}

func TestMustConditionPanics(t *testing.T) {
	assert.Panics(t, func() { MustCondition("nonsense") }, "MustCondition accepted a bad condition")
}

func TestEval(t *testing.T) {
	r := loop.Request{Purpose: loop.PurposeMain, Model: "big", MaxTokens: 32000, InputTokens: 1500,
		Messages: make([]loop.Message, 4), NonStreaming: true}
	for _, tc := range []struct {
		cond string
		want bool
	}{
		{"purpose == main", true},
		{"purpose != main", false},
		{"purpose == compact", false},
		{"model == big", true},
		{"model == fallback-model", false},
		{"max_tokens >= 64000", false},
		{"max_tokens < 64000", true},
		{"input_tokens > window", true},
		{"input_tokens <= window", false},
		{"input_tokens == 1500", true},
		{"messages == 4", true},
		{"messages != 4", false},
		{"non_streaming == true", true},
		{"non_streaming != true", false},
		{"request == 3", true},
		{"request > 3", false},
	} {
		got, err := MustCondition(tc.cond).Eval(r, 3, 1000)
		if assert.NoError(t, err, tc.cond) {
			assert.Equal(t, tc.want, got, tc.cond)
		}
	}
	_, err := MustCondition("input_tokens > window").Eval(r, 1, 0)
	assert.Error(t, err, "window with no window")
	_, err = (Condition{Field: "x", Op: "==", Value: "1"}).Eval(r, 1, 0)
	assert.Error(t, err, "invalid condition evaluated")
}
