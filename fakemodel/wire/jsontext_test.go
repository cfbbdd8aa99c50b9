package wire_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
)

func TestCheckText(t *testing.T) {
	for _, c := range []struct {
		body, problem string
		offset        int
	}{
		{`{"a":"plain é"}`, "", 0},
		{`{"a":"pair \ud83d\ude00"}`, "", 0},
		{`{"a":"escaped \\ud800 is text"}`, "", 0},
		{`{"a":"bmp \u00e9 \uFFFF"}`, "", 0},
		{"{\"a\":\"\xff\"}", "invalid utf-8 encoding", 6},
		{`{"a":"x\ud800"}`, "no low surrogate", 7},
		{`{"a":"x\ud800\u0041"}`, "no low surrogate", 7},
		{"{\n\"a\":\"\\udc00\"}", "invalid low surrogate", 7},
	} {
		err := wire.CheckText([]byte(c.body))
		if c.problem == "" {
			assert.NoError(t, err, c.body)
			continue
		}
		var te *wire.TextError
		require.ErrorAs(t, err, &te, c.body)
		assert.Equal(t, c.problem, te.Problem, c.body)
		assert.Equal(t, c.offset, te.Offset, c.body)
	}
	err := wire.CheckText([]byte("{\n\"a\":\"\\udc00\"}"))
	assert.EqualError(t, err, "invalid low surrogate in string: line 2 column 6 (char 7)")
}

func TestJSONTypeError(t *testing.T) {
	var v struct {
		N int `json:"n"`
		L []struct {
			S string `json:"s"`
		} `json:"l"`
		B *bool    `json:"b"`
		O struct{} `json:"o"`
	}
	for body, want := range map[string][2]string{
		`{"n":"x"}`:          {"n", "integer"},
		`{"l":{}}`:           {"l", "array"},
		`{"l":[{"s":true}]}`: {"l.s", "string"},
		`{"b":1}`:            {"b", "boolean"},
		`{"o":[]}`:           {"o", "object"},
	} {
		field, kind, ok := wire.JSONTypeError(json.Unmarshal([]byte(body), &v))
		require.True(t, ok, body)
		assert.Equal(t, want, [2]string{field, kind}, body)
	}
	_, _, ok := wire.JSONTypeError(json.Unmarshal([]byte(`{`), &v))
	assert.False(t, ok, "a syntax error is no type error")
}
