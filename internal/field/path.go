package field

import (
	"fmt"
	"reflect"
	"strings"
)

// Name is the name field f goes by: its JSON tag's name, else its Go
// name; ok is false for an unexported field and for one tagged "-".
func Name(f reflect.StructField) (name string, ok bool) {
	if !f.IsExported() {
		return "", false
	}
	name, _, _ = strings.Cut(f.Tag.Get("json"), ",")
	switch name {
	case "-":
		return "", false
	case "":
		return f.Name, true
	}
	return name, true
}

// Names lists the names of struct type t's fields ([Name]), in
// declaration order.
func Names(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if name, ok := Name(t.Field(i)); ok {
			out = append(out, name)
		}
	}
	return out
}

// Field is a field that holds a value (not a struct of fields), reached
// from a root struct type.
type Field struct {
	// Path is its dotted path of names from the root ("faults.abort").
	Path string
	// Struct is the field itself, with its tags.
	Struct reflect.StructField
	// Index is its index sequence from the root, for
	// [reflect.Value.FieldByIndex].
	Index []int
	// Parent is the struct type that declares it.
	Parent reflect.Type
}

// Fields lists the value-holding fields of struct type t, depth first in
// declaration order: a field of struct type is not listed itself but
// stands for its fields, whose paths it prefixes.
func Fields(t reflect.Type) []Field {
	var out []Field
	var walk func(t reflect.Type, prefix string, index []int)
	walk = func(t reflect.Type, prefix string, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, ok := Name(f)
			if !ok {
				continue
			}
			at := append(append([]int(nil), index...), i)
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, prefix+name+".", at)
				continue
			}
			out = append(out, Field{Path: prefix + name, Struct: f, Index: at, Parent: t})
		}
	}
	walk(t, "", nil)
	return out
}

// Lookup returns the field of struct v named name ([Name]); ok is false
// when v is not a struct or has no such field.
func Lookup(v reflect.Value, name string) (reflect.Value, bool) {
	if v.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	t := v.Type()
	for i := range t.NumField() {
		if n, ok := Name(t.Field(i)); ok && n == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// Find returns the field of struct v at path, a dotted path of names
// ("output.median"). The error names the path and where it stopped.
func Find(v reflect.Value, path string) (reflect.Value, error) {
	at := ""
	for _, name := range strings.Split(path, ".") {
		f, ok := Lookup(v, name)
		switch {
		case ok:
			at, v = join(at, name), f
			continue
		case v.Kind() != reflect.Struct:
			return reflect.Value{}, fmt.Errorf("no field %q (%s holds a value of type %s, not fields)", path, at, v.Type())
		}
		return reflect.Value{}, fmt.Errorf("no field %q (%s has no field %q; known: %s)", path, v.Type(), name, strings.Join(Names(v.Type()), ", "))
	}
	return v, nil
}

// join appends name to a dotted path.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
