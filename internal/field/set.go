package field

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

var durationType = reflect.TypeFor[time.Duration]()

// Set sets v, a settable field at path, from text by the package's rule
// for its type. A text that does not read is an [*Error] naming path; a
// type the rule does not cover (a struct, a map) is an error too, and v
// is left as it was.
func Set(v reflect.Value, path, text string) error {
	if v.Kind() == reflect.Slice {
		return setList(v, path, text)
	}
	x, err := parse(v.Type(), text)
	if err != nil {
		return atPath(err, path)
	}
	v.Set(x)
	return nil
}

// atPath names path in err: an [*Error]'s Path, else a prefix.
func atPath(err error, path string) error {
	if e, ok := err.(*Error); ok {
		e.Path = path
		return e
	}
	return fmt.Errorf("%s: %w", path, err)
}

// setList sets slice v from comma-separated items, each read by the
// element's rule; the error of an item names it path[i].
func setList(v reflect.Value, path, text string) error {
	var items []reflect.Value
	for _, s := range strings.Split(text, ",") {
		if strings.TrimSpace(s) == "" {
			continue
		}
		x, err := parse(v.Type().Elem(), s)
		if err != nil {
			return atPath(err, fmt.Sprintf("%s[%d]", path, len(items)))
		}
		items = append(items, x)
	}
	if items == nil {
		v.Set(reflect.Zero(v.Type()))
		return nil
	}
	list := reflect.MakeSlice(v.Type(), len(items), len(items))
	for i, x := range items {
		list.Index(i).Set(x)
	}
	v.Set(list)
	return nil
}

// parse reads text as a value of type t.
func parse(t reflect.Type, text string) (reflect.Value, error) {
	x := reflect.New(t).Elem()
	if t == durationType {
		d, err := ParseDuration(text)
		x.SetInt(int64(d))
		return x, err
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := ParseInt(text, t.Bits())
		x.SetInt(n)
		return x, err
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := ParseUint(text, t.Bits())
		x.SetUint(n)
		return x, err
	case reflect.Float32, reflect.Float64:
		f, err := ParseFloat(text)
		x.SetFloat(f)
		return x, err
	case reflect.Bool:
		b, err := ParseBool(text)
		x.SetBool(b)
		return x, err
	case reflect.String:
		x.SetString(strings.TrimSpace(text))
		return x, nil
	}
	return x, fmt.Errorf("a field of type %s is not set from text", t)
}

// TypeName is the name of what a field of type t takes, as a listing of
// fields shows it: int, uint, float, bool, string, duration, or "list of"
// one of those.
func TypeName(t reflect.Type) string {
	if t == durationType {
		return "duration"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "int"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "uint"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Slice:
		return "list of " + TypeName(t.Elem())
	}
	return t.Kind().String()
}
