package scenarios

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/loopsim/loopsim/internal/field"
	"github.com/loopsim/loopsim/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMEDocumentsTheFormat: every field of the format, every counter
// and every invariant is named in README.md, in backquotes.
func TestREADMEDocumentsTheFormat(t *testing.T) {
	data, err := os.ReadFile("README.md")
	require.NoError(t, err)
	readme := string(data)
	var names []string
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	selfDecoding := func(tp reflect.Type) bool {
		ptr := reflect.PointerTo(tp)
		return ptr.Implements(reflect.TypeFor[nodeDecoder]()) || ptr.Implements(textUnmarshaler)
	}
	walk = func(tp reflect.Type) {
		if selfDecoding(tp) {
			return // its YAML form is text, not fields
		}
		for tp.Kind() == reflect.Pointer || tp.Kind() == reflect.Slice || tp.Kind() == reflect.Map {
			tp = tp.Elem()
		}
		if tp.Kind() != reflect.Struct || seen[tp] || selfDecoding(tp) {
			return
		}
		seen[tp] = true
		for i := range tp.NumField() {
			if name, ok := field.Name(tp.Field(i)); ok {
				names = append(names, name)
				walk(tp.Field(i).Type)
			}
		}
	}
	walk(reflect.TypeFor[Scenario]())
	for _, c := range Counters {
		names = append(names, c.Name)
	}
	names = append(names, properties.InvariantNames()...)
	for _, n := range names {
		// assert.True, not assert.Contains: a failure names the field, not the whole README
		assert.True(t, strings.Contains(readme, "`"+n+"`"), "README.md does not document `%s`", n)
	}
}
