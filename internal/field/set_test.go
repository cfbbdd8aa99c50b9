package field

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type mode string

type sample struct {
	Count    int           `json:"count"`
	Small    int8          `json:"small"`
	Seed     uint64        `json:"seed"`
	Share    float64       `json:"share"`
	Ratio    float32       `json:"ratio"`
	On       bool          `json:"on"`
	Mode     mode          `json:"mode"`
	Wait     time.Duration `json:"wait"`
	Models   []string      `json:"models"`
	Sizes    []int         `json:"sizes"`
	Inner    inner         `json:"inner"`
	Table    map[string]int
	Untagged string
	Skipped  int `json:"-"`
	hidden   int
}

type inner struct {
	Min  int     `json:"min,omitempty"`
	Mean float64 `json:"mean"`
}

// set sets the field of s at path from text.
func set(t *testing.T, s *sample, path, text string) error {
	t.Helper()
	v, err := Find(reflect.ValueOf(s).Elem(), path)
	require.NoError(t, err, path)
	return Set(v, path, text)
}

func TestSetEveryType(t *testing.T) {
	var s sample
	for _, c := range [][2]string{
		{"count", "20_000"}, {"small", "-8"}, {"seed", "7"}, {"share", "0.5"}, {"ratio", "0.25"},
		{"on", "on"}, {"mode", " fast "}, {"wait", "2s"}, {"models", " a, ,b ,"}, {"sizes", "1_000,2"},
		{"inner.min", "3"}, {"inner.mean", "1.5"}, {"Untagged", "x"},
	} {
		require.NoError(t, set(t, &s, c[0], c[1]), "%s=%s", c[0], c[1])
	}
	assert.Equal(t, sample{Count: 20_000, Small: -8, Seed: 7, Share: 0.5, Ratio: 0.25, On: true, Mode: "fast",
		Wait: 2 * time.Second, Models: []string{"a", "b"}, Sizes: []int{1000, 2}, Inner: inner{Min: 3, Mean: 1.5},
		Untagged: "x"}, s)
}

// An empty list is nil, whatever the list held.
func TestSetEmptyList(t *testing.T) {
	s := sample{Models: []string{"a"}}
	require.NoError(t, set(t, &s, "models", " , "))
	assert.Nil(t, s.Models)
}

// A text that does not read leaves the field as it was and names the
// path, or the list item.
func TestSetErrorsNameThePath(t *testing.T) {
	for _, c := range []struct{ path, text, err string }{
		{"count", "many", `count: "many" is not an integer`},
		{"small", "300", `small: "300" is not an integer of 8 bits`},
		{"seed", "-1", `seed: "-1" is not a whole number`},
		{"share", "half", `share: "half" is not a number`},
		{"on", "yes", `on: "yes" is not true or false`},
		{"wait", "2", `wait: "2" is not a duration`},
		{"sizes", "1,x", `sizes[1]: "x" is not an integer`},
		{"inner", "1", `inner: a field of type field.inner is not set from text`},
		{"Table", "1", `Table: a field of type map[string]int is not set from text`},
	} {
		s := sample{Count: 1, Small: 1, Seed: 1, Share: 1, On: true, Wait: 1, Sizes: []int{9}, Inner: inner{Min: 1}}
		before := s
		assert.EqualError(t, set(t, &s, c.path, c.text), c.err, "%s=%s", c.path, c.text)
		assert.Equal(t, before, s, "%s=%s changed the field", c.path, c.text)
	}
	var s sample
	err := set(t, &s, "sizes", "x")
	var fe *Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, Error{Path: "sizes[0]", Text: "x", Want: "an integer"}, *fe)
}

func TestTypeName(t *testing.T) {
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[int](): "int", reflect.TypeFor[int8](): "int", reflect.TypeFor[uint64](): "uint",
		reflect.TypeFor[float64](): "float", reflect.TypeFor[float32](): "float", reflect.TypeFor[bool](): "bool",
		reflect.TypeFor[mode](): "string", reflect.TypeFor[time.Duration](): "duration",
		reflect.TypeFor[[]string](): "list of string", reflect.TypeFor[[]float64](): "list of float",
		reflect.TypeFor[inner](): "struct",
	} {
		assert.Equal(t, want, TypeName(typ), "%s", typ)
	}
}
