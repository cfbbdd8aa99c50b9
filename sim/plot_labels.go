package sim

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/loopsim/loopsim/loop"
)

// zeroMeanings maps each policy field whose zero is a switch rather than
// a quantity (its zero tag: "off", "never", "model's") to what zero means.
var zeroMeanings = func() map[string]string {
	out := map[string]string{}
	t := reflect.TypeOf(loop.Policy{})
	for i := range t.NumField() {
		f := t.Field(i)
		if z := f.Tag.Get("zero"); z != "" {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			out[name] = z
		}
	}
	return out
}()

// ZeroMeaning is what 0 means for field (a policy field by its JSON
// name), "" when 0 is a plain number.
func ZeroMeaning(field string) string { return zeroMeanings[field] }

// ValueLabel is how plots and tables show value of field: what zero
// means for a field whose zero is a switch ("off" for
// stop_hook_block_cap=0), else the value as given.
func ValueLabel(field, value string) string {
	if z := ZeroMeaning(field); z != "" {
		if n, err := strconv.ParseFloat(strings.ReplaceAll(value, "_", ""), 64); err == nil && n == 0 {
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
func Categorical(field string, values []string) bool {
	for _, v := range values {
		if _, err := strconv.ParseFloat(strings.ReplaceAll(v, "_", ""), 64); err != nil || ValueLabel(field, v) != v {
			return true
		}
	}
	return false
}
