package scenarios

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/internal/field"
	"github.com/loopsim/loopsim/loop"
)

// decoder turns a YAML node tree into Go values, strictly: a mapping key
// must name a field by its json tag, a scalar must have the YAML type the
// field needs, no key may repeat, no number may be negative, and anchors
// and aliases are refused (an alias can blow a small file up into an
// enormous tree). Every problem is recorded with the node's position and
// the field's path, and decoding goes on past it, so one pass reports
// them all.
//
// The scalars are read by internal/field's rule, as every -set, -sweep
// and policy override: a boolean is true or false in any case (True,
// TRUE), or on/off, 1/0; a whole number is decimal with _ between digits
// to group them (YAML's 0x10 and 0o17 are refused, and 010 is ten, not
// YAML's octal eight); a number is Go's. A string is YAML's string as
// written (field's rule trims a command line's spaces; a YAML string's
// are its own).
//
// Decoding by json tags lets the format reuse the fakes' own types
// ([fakemodel.Step], [fakemodel.Tool], ...) field for field, so the
// scenario schema cannot drift from the fakes it drives.
type decoder struct {
	file string
	errs ErrorList
	// at is where the value of every decoded path was written.
	at map[string]position
}

// position is a line and column in a file, both from 1.
type position struct{ line, column int }

// maxErrors bounds the problems reported for one file.
const maxErrors = 25

// nodeDecoder is implemented by types that read their own YAML form.
type nodeDecoder interface {
	decodeNode(d *decoder, n *yaml.Node, path string)
}

// wordInts are the words an integer field, by its name, accepts in place
// of a number.
var wordInts = map[string]map[string]int64{
	"repeat": {"forever": fakemodel.Forever},
}

func newDecoder(file string) *decoder {
	return &decoder{file: file, at: map[string]position{}}
}

// errorf records a problem at node n.
func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) {
	d.errorAt(position{n.Line, n.Column}, path, format, args...)
}

// errorAt records a problem at p.
func (d *decoder) errorAt(p position, path, format string, args ...any) {
	switch {
	case len(d.errs) < maxErrors:
		d.errs = append(d.errs, &Error{File: d.file, Line: p.line, Column: p.column, Field: path, Msg: fmt.Sprintf(format, args...)})
	case len(d.errs) == maxErrors:
		d.errs = append(d.errs, &Error{File: d.file, Line: p.line, Column: p.column, Msg: "too many problems; stopping here"})
	}
}

// where returns the position recorded for path, or for its nearest
// ancestor that has one (a missing field is reported where its parent
// was written).
func (d *decoder) where(path string) position {
	for {
		if p, ok := d.at[path]; ok {
			return p
		}
		if path == "" {
			return position{1, 1}
		}
		path = parentPath(path)
	}
}

// parentPath strips the last element off a path: "a.b[2]" -> "a.b",
// "a.b" -> "a", "a" -> "".
func parentPath(path string) string {
	if strings.HasSuffix(path, "]") {
		if i := strings.LastIndexByte(path, '['); i >= 0 {
			return path[:i]
		}
	}
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return ""
}

// fieldName is the last name in a path: "script[2].repeat" -> "repeat".
func fieldName(path string) string {
	for strings.HasSuffix(path, "]") {
		path = parentPath(path)
	}
	return path[strings.LastIndexByte(path, '.')+1:]
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// decode decodes n into v, which must be settable.
func (d *decoder) decode(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind == yaml.AliasNode {
		d.errorf(n, path, "aliases (*%s) are not supported: write the value out", n.Value)
		return
	}
	if n.Anchor != "" {
		d.errorf(n, path, "anchors (&%s) are not supported: write the value out", n.Anchor)
		return
	}
	d.at[path] = position{n.Line, n.Column}
	if nd, ok := v.Addr().Interface().(nodeDecoder); ok {
		nd.decodeNode(d, n, path)
		return
	}
	if v.Kind() != reflect.Pointer && v.Addr().Type().Implements(textUnmarshaler) {
		if s, ok := d.scalar(n, path, "!!str", "a string"); ok {
			if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
				d.errorf(n, path, "%v", err)
			}
		}
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if isNull(n) {
			return
		}
		p := reflect.New(v.Type().Elem())
		d.decode(n, path, p.Elem())
		v.Set(p)
	case reflect.Struct:
		d.object(n, path, v)
	case reflect.Slice:
		d.list(n, path, v)
	case reflect.Map:
		d.dict(n, path, v)
	case reflect.String:
		if s, ok := d.scalar(n, path, "!!str", "a string"); ok {
			v.SetString(s)
		}
	case reflect.Bool:
		d.boolean(n, path, v)
	case reflect.Int, reflect.Int64, reflect.Uint64:
		d.integer(n, path, v)
	case reflect.Float64:
		d.float(n, path, v)
	default:
		d.errorf(n, path, "internal error: the format has no YAML form for %s", v.Type())
	}
}

// object decodes a mapping into a struct, by the fields' json names
// (internal/field's lookup, as every -set and With).
func (d *decoder) object(n *yaml.Node, path string, v reflect.Value) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want a mapping of fields, got %s", describe(n))
		return
	}
	d.pairs(n, path, func(key string, k, val *yaml.Node) {
		f, ok := field.Lookup(v, key)
		if !ok {
			d.errorf(k, join(path, key), "unknown field (known here: %s)", strings.Join(field.Names(v.Type()), ", "))
			return
		}
		d.decode(val, join(path, key), f)
	})
}

// pairs calls f for every key of mapping n, refusing keys that are not
// plain strings or that repeat.
func (d *decoder) pairs(n *yaml.Node, path string, f func(key string, k, v *yaml.Node)) {
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			d.errorf(k, path, "a key must be a plain name, got %s", describe(k))
			continue
		}
		if line, dup := first[k.Value]; dup {
			d.errorf(k, join(path, k.Value), "repeated key (first written on line %d)", line)
			continue
		}
		first[k.Value] = k.Line
		f(k.Value, k, v)
	}
}

// list decodes a sequence into a slice. An empty sequence gives an empty,
// non-nil slice: "written but empty" and "not written" differ for some
// fields (a compactor with no outcomes is still a compactor).
func (d *decoder) list(n *yaml.Node, path string, v reflect.Value) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "want a list, got %s", describe(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.decode(item, fmt.Sprintf("%s[%d]", path, i), s.Index(i))
	}
	v.Set(s)
}

// dict decodes a mapping into a map with string keys.
func (d *decoder) dict(n *yaml.Node, path string, v reflect.Value) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want a mapping, got %s", describe(n))
		return
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	d.pairs(n, path, func(key string, _, val *yaml.Node) {
		e := reflect.New(v.Type().Elem()).Elem()
		d.decode(val, join(path, key), e)
		m.SetMapIndex(reflect.ValueOf(key).Convert(v.Type().Key()), e)
	})
	v.Set(m)
}

// scalar returns the value of n if it is a scalar with the given tag.
func (d *decoder) scalar(n *yaml.Node, path, tag, want string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != tag {
		d.errorf(n, path, "want %s, got %s", want, describe(n))
		return "", false
	}
	return n.Value, true
}

// integer decodes a whole number that is zero or more, or a word the
// field accepts instead (repeat: forever).
func (d *decoder) integer(n *yaml.Node, path string, v reflect.Value) {
	words := wordInts[fieldName(path)]
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && words != nil {
		x, ok := words[n.Value]
		if !ok {
			d.errorf(n, path, "want a whole number or %s, got %s", wordList(words), describe(n))
			return
		}
		v.SetInt(x)
		return
	}
	want := "a whole number"
	if words != nil {
		want += " or " + wordList(words)
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" && allDigits(n.Value) {
		// YAML reads a whole number too large for 64 bits as a float
		most, why := intBound(path)
		if v.Kind() == reflect.Uint64 {
			d.errorf(n, path, "%s is above %d, the largest %s a scenario may state (64 bits)", n.Value, uint64(math.MaxUint64), fieldName(path))
			return
		}
		d.errorf(n, path, "%s is above %d, %s", n.Value, most, why)
		return
	}
	if _, ok := d.scalar(n, path, "!!int", want); !ok {
		return
	}
	if v.Kind() == reflect.Uint64 {
		u, err := field.ParseUint(n.Value, 64)
		switch {
		case err == nil:
			v.SetUint(u)
		case strings.HasPrefix(strings.TrimSpace(n.Value), "-"):
			d.errorf(n, path, "%s is negative: every number in a scenario is zero or more", n.Value)
		default:
			d.errorf(n, path, "%s", notWhole(n.Value, err, fmt.Sprintf("is not a whole number from 0 to %d", uint64(math.MaxUint64))))
		}
		return
	}
	x, err := field.ParseInt(n.Value, 64)
	if err != nil {
		d.errorf(n, path, "%s", notWhole(n.Value, err, "does not fit in 64 bits"))
		return
	}
	most, why := intBound(path)
	switch {
	case x < 0:
		d.errorf(n, path, "%d is negative: every number in a scenario is zero or more", x)
	case x > most:
		d.errorf(n, path, "%d is above %d, %s", x, most, why)
	case v.OverflowInt(x):
		d.errorf(n, path, "%d is too large", x)
	default:
		v.SetInt(x)
	}
}

// notWhole is the problem of a YAML integer text that internal/field's
// rule did not read: too large for the field, or no decimal number
// (YAML's hexadecimal, octal or binary forms).
func notWhole(text string, err error, tooLarge string) string {
	if e, ok := err.(*field.Error); ok && e.TooLarge {
		return text + " " + tooLarge
	}
	return text + " is not a decimal whole number (digits, with _ between two to group them)"
}

// boolean decodes true or false by internal/field's rule: in any case,
// or on/off, 1/0.
func (d *decoder) boolean(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		if b, err := field.ParseBool(n.Value); err == nil {
			v.SetBool(b)
			return
		}
	}
	d.errorf(n, path, "want true or false, got %s", describe(n))
}

// allDigits reports whether s is a non-empty run of decimal digits.
func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// intBound is the largest whole number the field at path may hold, and
// what the bound is, for the message. Every count a file states is
// bounded, so nothing a small file says can make the loader, the fakes or
// the loop allocate without limit or overflow a sum.
func intBound(path string) (int64, string) {
	switch fieldName(path) {
	case "after":
		return fakemodel.MaxAfter, "the most content blocks a stream may yield before it fails (fakemodel.MaxAfter)"
	case "repeat", "times":
		return fakemodel.MaxRepeat, "the most calls one step or outcome may answer (fakemodel.MaxRepeat)"
	case "keep":
		return fakemodel.MaxRepeat, "the most messages a compaction may keep (fakemodel.MaxRepeat)"
	case "retry_after_ms":
		return loop.MaxRetryAfterMS, "the longest retry-after a fault may carry, one day (loop.MaxRetryAfterMS)"
	case "status":
		return 599, "the largest HTTP status"
	case "iteration_limit":
		return MaxIterationLimit, "the most iterations a scenario may run (scenarios.MaxIterationLimit)"
	}
	return loop.MaxTokenCount, "the largest size or count a scenario may state (loop.MaxTokenCount)"
}

// float decodes a finite number that is zero or more.
func (d *decoder) float(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!float" && n.ShortTag() != "!!int") {
		d.errorf(n, path, "want a number, got %s", describe(n))
		return
	}
	x, err := field.ParseFloat(n.Value)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		d.errorf(n, path, "%s is not a finite number", n.Value)
		return
	}
	if x < 0 {
		d.errorf(n, path, "%s is negative: every number in a scenario is zero or more", n.Value)
		return
	}
	v.SetFloat(x)
}

func wordList(words map[string]int64) string {
	list := make([]string, 0, len(words))
	for w := range words {
		list = append(list, w)
	}
	slices.Sort(list) // the message must not depend on map order
	return strings.Join(list, " or ")
}

// isNull reports whether n is YAML null (~, null or nothing).
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names what n is, for messages: "the string \"x\"", "a list".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	}
	v := n.Value
	if len(v) > 40 {
		v = v[:37] + "..."
	}
	switch n.ShortTag() {
	case "!!str":
		return fmt.Sprintf("the string %q", v)
	case "!!int":
		return "the whole number " + v
	case "!!float":
		return "the number " + v
	case "!!bool":
		return "the boolean " + v
	case "!!null":
		return "null"
	}
	return fmt.Sprintf("%s %q", n.ShortTag(), v)
}
