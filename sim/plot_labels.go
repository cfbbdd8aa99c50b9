package sim

import (
	"reflect"

	"github.com/loopsim/loopsim/internal/field"
	"github.com/loopsim/loopsim/loop"
)

// zeroMeanings maps each policy field whose zero is a switch rather than
// a quantity (its zero tag: "off", "never", "model's") to what zero means.
var zeroMeanings = func() map[string]string {
	out := map[string]string{}
	for _, f := range field.Fields(reflect.TypeOf(loop.Policy{})) {
		if z := f.Struct.Tag.Get("zero"); z != "" {
			out[f.Path] = z
		}
	}
	return out
}()

// ZeroMeaning is what 0 means for the policy field of that JSON name, ""
// when 0 is a plain number.
func ZeroMeaning(name string) string { return zeroMeanings[name] }

// ValueLabel is how plots and tables show value of the field name: what zero
// means for a field whose zero is a switch ("off" for
// stop_hook_block_cap=0), else the value as given.
func ValueLabel(name, value string) string {
	if z := ZeroMeaning(name); z != "" {
		if n, err := field.ParseFloat(value); err == nil && n == 0 {
			return z
		}
	}
	return value
}

// paramLabel is p as field=value with the value shown by [ValueLabel].
func paramLabel(p Param) string { return p.Field + "=" + ValueLabel(p.Field, p.Value) }

// Categorical reports whether a sweep's values are categories rather
// than points on a number line: some is not a number, or one of them is
// a zero that means a switch ([ZeroMeaning]).
func Categorical(name string, values []string) bool {
	for _, v := range values {
		if _, err := field.ParseFloat(v); err != nil || ValueLabel(name, v) != v {
			return true
		}
	}
	return false
}
