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

// Every edge of the text check: escapes that hide a quote, escapes JSON
// does not know, surrogates at both ends of their ranges in either case,
// an escape at the very end of the body, a literal U+FFFD.
func TestCheckTextEdges(t *testing.T) {
	for _, c := range []struct {
		body, problem string
		offset        int
	}{
		{`{"a":"x\"\ud800"}`, "no low surrogate", 9},           // \" does not end the string
		{`{"a":"\\"}\ud800`, "", 0},                            // after the string: not text
		{`\ud800`, "", 0},                                      // outside any string
		{`{"a":"\uZZZZ \u12"}`, "", 0},                         // not escapes JSON knows
		{`"\u12`, "", 0},                                       // cut short at the end
		{`"\udc00`, "invalid low surrogate", 1},                // four digits right at the end
		{`"\ud900"`, "no low surrogate", 1},                    // 9 is a digit
		{`"\uda00"`, "no low surrogate", 1},                    // a is a digit
		{`"\uDA00"`, "no low surrogate", 1},                    // A is a digit
		{`"\udbff"`, "no low surrogate", 1},                    // the last high surrogate
		{`"\udbff\udfff"`, "", 0},                              // the last pair
		{`"\uDBFF\uDFFF"`, "", 0},                              // in capitals
		{`"\ud800\udc00"`, "", 0},                              // the first pair
		{`"\ud800\udbff"`, "no low surrogate", 1},              // a high after a high
		{`"\ud800\ue000"`, "no low surrogate", 1},              // past the lows
		{`"\ud800\u"`, "no low surrogate", 1},                  // no digits after
		{`"\ud800\\udc00"`, "no low surrogate", 1},             // an escaped backslash, then text
		{`"\ud800x"`, "no low surrogate", 1},                   // text after
		{`"\ud800\udc00\ud800"`, "no low surrogate", 13},       // the pair is skipped whole
		{`"\u0041\ud800"`, "no low surrogate", 7},              // a plain escape is skipped whole
		{`"\u0041\u0042\udc00"`, "invalid low surrogate", 13},  // and the next one read
		{"\"\xef\xbf\xbd ok\"", "", 0},                         // U+FFFD written out is text
		{"\"\xef\xbf\xbd \xc3\"", "invalid utf-8 encoding", 5}, // an invalid byte after it
		{"\"\xc3\xa9\xe2\x82\"", "invalid utf-8 encoding", 3},  // after a two-byte character
		{"\"é\"\n\"\\udc00\"", "invalid low surrogate", 6},     // on the second line
		{`"x\`, "", 0},                                         // a backslash at the very end
		{`"\\\udc00"`, "invalid low surrogate", 3},             // an escaped backslash, then an escape
	} {
		err := wire.CheckText([]byte(c.body))
		if c.problem == "" {
			assert.NoError(t, err, c.body)
			continue
		}
		var te *wire.TextError
		if assert.ErrorAs(t, err, &te, c.body) {
			assert.Equal(t, c.problem, te.Problem, c.body)
			assert.Equal(t, c.offset, te.Offset, c.body)
		}
	}
	for body, pos := range map[string][2]int{
		"\"\\udc00\"":                      {1, 2},
		"{\n  \"a\": \"\\udc00\"}":         {2, 9},
		"[\n\n\t\"\\ud800\"]":              {3, 3},
		"\"\xff\"":                         {1, 2},
		"{\"a\":\n\"b\",\n\"c\":\"\xff\"}": {3, 6},
	} {
		var te *wire.TextError
		require.ErrorAs(t, wire.CheckText([]byte(body)), &te, body)
		assert.Equal(t, pos, [2]int{te.Line, te.Column}, "%q", body)
	}
}

// The JSON type each Go kind wants, pointers followed.
func TestJSONTypeErrorKinds(t *testing.T) {
	var v struct {
		I8  int8           `json:"i8"`
		I16 int16          `json:"i16"`
		I32 int32          `json:"i32"`
		I64 int64          `json:"i64"`
		U   uint           `json:"u"`
		U8  uint8          `json:"u8"`
		U16 uint16         `json:"u16"`
		U32 uint32         `json:"u32"`
		U64 uint64         `json:"u64"`
		F32 float32        `json:"f32"`
		F64 float64        `json:"f64"`
		A   [2]int         `json:"a"`
		P   **string       `json:"p"`
		M   map[string]int `json:"m"`
	}
	for body, want := range map[string][2]string{
		`{"i8":"x"}`: {"i8", "integer"}, `{"i16":"x"}`: {"i16", "integer"}, `{"i32":"x"}`: {"i32", "integer"},
		`{"i64":"x"}`: {"i64", "integer"}, `{"u":"x"}`: {"u", "integer"}, `{"u8":"x"}`: {"u8", "integer"},
		`{"u16":"x"}`: {"u16", "integer"}, `{"u32":"x"}`: {"u32", "integer"}, `{"u64":"x"}`: {"u64", "integer"},
		`{"f32":"x"}`: {"f32", "number"}, `{"f64":"x"}`: {"f64", "number"}, `{"a":{}}`: {"a", "array"},
		`{"p":1}`: {"p", "string"}, `{"m":[]}`: {"m", "object"},
	} {
		field, kind, ok := wire.JSONTypeError(json.Unmarshal([]byte(body), &v))
		require.True(t, ok, body)
		assert.Equal(t, want, [2]string{field, kind}, body)
	}
	_, _, ok := wire.JSONTypeError(&json.UnmarshalTypeError{Value: "string"})
	assert.False(t, ok, "a type error that names no type")
	_, _, ok = wire.JSONTypeError(nil)
	assert.False(t, ok)
}
