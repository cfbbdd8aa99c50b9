package scenarios

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/loopsim/loopsim/properties"
)

// TestREADMEDocumentsTheFormat: every field of the format, every counter
// and every invariant is named in README.md, in backquotes.
func TestREADMEDocumentsTheFormat(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
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
			if name, ok := jsonName(tp.Field(i)); ok {
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
		if !strings.Contains(readme, "`"+n+"`") {
			t.Errorf("README.md does not document `%s`", n)
		}
	}
}
