package field_test

import (
	"fmt"
	"reflect"

	"github.com/loopsim/loopsim/internal/field"
)

// A field is found by its JSON name, or a dotted path of them, and set
// from text by the one rule every -set, -sweep, With and scenario value
// follows: digits grouped by _, booleans in any case, lists by commas.
func ExampleSet() {
	type faults struct {
		Overloaded float64 `json:"overloaded"`
	}
	type config struct {
		Buffer int      `json:"auto_compact_buffer"`
		On     bool     `json:"auto_compact"`
		Models []string `json:"models"`
		Faults faults   `json:"faults"`
	}
	var c config
	v := reflect.ValueOf(&c).Elem()
	for _, kv := range [][2]string{
		{"auto_compact_buffer", "20_000"},
		{"auto_compact", "True"},
		{"models", "opus, haiku"},
		{"faults.overloaded", "0.000_5"},
		{"auto_compact_buffer", "0x10"},
	} {
		f, err := field.Find(v, kv[0])
		if err == nil {
			err = field.Set(f, kv[0], kv[1])
		}
		if err != nil {
			fmt.Println("error:", err)
		}
	}
	fmt.Printf("%+v\n", c)

	// Output:
	// error: auto_compact_buffer: "0x10" is not an integer
	// {Buffer:20000 On:true Models:[opus haiku] Faults:{Overloaded:0.0005}}
}

// The fields a listing shows (-fields), depth first: a struct field
// stands for its own fields.
func ExampleFields() {
	type dist struct {
		Median float64 `json:"median"`
		Sigma  float64 `json:"sigma"`
	}
	type workload struct {
		Output  dist `json:"output"`
		Prompts int  `json:"prompts"`
	}
	for _, f := range field.Fields(reflect.TypeFor[workload]()) {
		fmt.Println(f.Path, field.TypeName(f.Struct.Type))
	}

	// Output:
	// output.median float
	// output.sigma float
	// prompts int
}
