package field

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The package's rule, once for every type: each row a text, what it
// reads as, or the error it gives.
func TestParseRule(t *testing.T) {
	for _, c := range []struct {
		name string
		read func(string) (any, error)
		text string
		want any
		err  string
	}{
		// integers
		{"int", parseInt64, "20000", int64(20_000), ""},
		{"int", parseInt64, " 20_000 ", int64(20_000), ""},
		{"int", parseInt64, "-1_000", int64(-1_000), ""},
		{"int", parseInt64, "+7", int64(7), ""},
		{"int", parseInt64, "1_2_3", int64(123), ""},
		{"int", parseInt64, "007", int64(7), ""},
		{"int", parseInt64, "_20", nil, `"_20" is not an integer`},
		{"int", parseInt64, "20_", nil, `"20_" is not an integer`},
		{"int", parseInt64, "2__0", nil, `"2__0" is not an integer`},
		{"int", parseInt64, "-_1", nil, `"-_1" is not an integer`},
		{"int", parseInt64, "1_x", nil, `"1_x" is not an integer`},
		{"int", parseInt64, "0x10", nil, `"0x10" is not an integer`},
		{"int", parseInt64, "1.5", nil, `"1.5" is not an integer`},
		{"int", parseInt64, "", nil, `"" is not an integer`},
		{"int", parseInt64, "9223372036854775808", nil, `"9223372036854775808" is not an integer of 64 bits`},
		{"int8", parseInt8, "127", int64(127), ""},
		{"int8", parseInt8, "128", nil, `"128" is not an integer of 8 bits`},
		// whole numbers
		{"uint", parseUint64, "18_446_744_073_709_551_615", uint64(math.MaxUint64), ""},
		{"uint", parseUint64, "-1", nil, `"-1" is not a whole number`},
		{"uint", parseUint64, "1__0", nil, `"1__0" is not a whole number`},
		{"uint8", parseUint8, "256", nil, `"256" is not a whole number of 8 bits`},
		// numbers
		{"float", parseFloat, "0.25", 0.25, ""},
		{"float", parseFloat, " 0.000_5 ", 0.0005, ""},
		{"float", parseFloat, "1_000.5", 1000.5, ""},
		{"float", parseFloat, "2e3", 2000.0, ""},
		{"float", parseFloat, "-Inf", math.Inf(-1), ""},
		{"float", parseFloat, "1_e3", nil, `"1_e3" is not a number`},
		{"float", parseFloat, "_1", nil, `"_1" is not a number`},
		{"float", parseFloat, "ten", nil, `"ten" is not a number`},
		{"float", parseFloat, "1e999", nil, `"1e999" is not a number`},
		// booleans
		{"bool", parseBool, "true", true, ""},
		{"bool", parseBool, " On ", true, ""},
		{"bool", parseBool, "1", true, ""},
		{"bool", parseBool, "FALSE", false, ""},
		{"bool", parseBool, "off", false, ""},
		{"bool", parseBool, "0", false, ""},
		{"bool", parseBool, "maybe", nil, `"maybe" is not true or false`},
		{"bool", parseBool, "t", nil, `"t" is not true or false`},
		// durations
		{"duration", parseDuration, " 1.5s ", 1500 * time.Millisecond, ""},
		{"duration", parseDuration, "300ms", 300 * time.Millisecond, ""},
		{"duration", parseDuration, "300", nil, `"300" is not a duration`},
	} {
		got, err := c.read(c.text)
		if c.err != "" {
			assert.EqualError(t, err, c.err, "%s %q", c.name, c.text)
			assert.Zero(t, got, "%s %q: the value with an error", c.name, c.text)
			continue
		}
		if assert.NoError(t, err, "%s %q", c.name, c.text) {
			assert.Equal(t, c.want, got, "%s %q", c.name, c.text)
		}
	}
}

// NaN reads (a range check is the caller's).
func TestParseFloatReadsNaN(t *testing.T) {
	x, err := ParseFloat("NaN")
	assert.NoError(t, err)
	assert.True(t, math.IsNaN(x))
}

// An integer too large for its field says so apart from a text that is
// no integer.
func TestErrorSaysTooLarge(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{name: "int beyond 64 bits", err: second(ParseInt("9223372036854775808", 64)), want: true},
		{name: "int beyond 8 bits", err: second(ParseInt("-129", 8)), want: true},
		{name: "uint beyond 64 bits", err: second(ParseUint("18446744073709551616", 64)), want: true},
		{name: "no int", err: second(ParseInt("0x10", 64))},
		{name: "no uint", err: second(ParseUint("-1", 64))},
	} {
		var e *Error
		require.ErrorAs(t, c.err, &e, c.name)
		assert.Equal(t, c.want, e.TooLarge, c.name)
	}
}

// second is the error of a two-valued call.
func second[T any](_ T, err error) error { return err }

func TestErrorNamesThePath(t *testing.T) {
	assert.EqualError(t, &Error{Path: "faults.abort", Text: "x", Want: "a number"}, `faults.abort: "x" is not a number`)
	assert.EqualError(t, &Error{Text: "x", Want: "a number"}, `"x" is not a number`)
}

func parseInt64(s string) (any, error) { return ParseInt(s, 64) }
func parseInt8(s string) (any, error)  { return ParseInt(s, 8) }
func parseUint64(s string) (any, error) {
	return ParseUint(s, 64)
}
func parseUint8(s string) (any, error)    { return ParseUint(s, 8) }
func parseFloat(s string) (any, error)    { return ParseFloat(s) }
func parseBool(s string) (any, error)     { return ParseBool(s) }
func parseDuration(s string) (any, error) { return ParseDuration(s) }
