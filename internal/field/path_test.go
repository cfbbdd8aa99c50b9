package field

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestName(t *testing.T) {
	typ := reflect.TypeFor[sample]()
	for field, want := range map[string]string{"Count": "count", "Untagged": "Untagged", "Skipped": "", "hidden": ""} {
		f, ok := typ.FieldByName(field)
		require.True(t, ok, field)
		got, ok := Name(f)
		assert.Equal(t, want, got, field)
		assert.Equal(t, want != "", ok, field)
	}
	f, _ := reflect.TypeFor[inner]().FieldByName("Min")
	got, _ := Name(f)
	assert.Equal(t, "min", got, "a tag's options are not its name")
}

func TestNames(t *testing.T) {
	assert.Equal(t, []string{"count", "small", "seed", "share", "ratio", "on", "mode", "wait", "models", "sizes",
		"inner", "Table", "Untagged"}, Names(reflect.TypeFor[sample]()))
}

func TestFields(t *testing.T) {
	fields := Fields(reflect.TypeFor[sample]())
	var paths []string
	for _, f := range fields {
		paths = append(paths, f.Path)
	}
	assert.Equal(t, []string{"count", "small", "seed", "share", "ratio", "on", "mode", "wait", "models", "sizes",
		"inner.min", "inner.mean", "Table", "Untagged"}, paths)
	mean := fields[11]
	assert.Equal(t, "Mean", mean.Struct.Name)
	assert.Equal(t, []int{10, 1}, mean.Index)
	assert.Equal(t, reflect.TypeFor[inner](), mean.Parent)
	assert.Equal(t, reflect.TypeFor[sample](), fields[0].Parent)
	s := sample{Inner: inner{Mean: 2.5}}
	assert.Equal(t, 2.5, reflect.ValueOf(s).FieldByIndex(mean.Index).Float())
	// the index sequences do not share their backing arrays
	assert.Equal(t, []int{10, 0}, fields[10].Index)
}

func TestLookup(t *testing.T) {
	s := sample{Count: 3}
	v, ok := Lookup(reflect.ValueOf(s), "count")
	require.True(t, ok)
	assert.Equal(t, int64(3), v.Int())
	_, ok = Lookup(reflect.ValueOf(s), "hidden")
	assert.False(t, ok, "an unexported field")
	_, ok = Lookup(reflect.ValueOf(s), "Skipped")
	assert.False(t, ok, `a field tagged "-"`)
	_, ok = Lookup(reflect.ValueOf(3), "count")
	assert.False(t, ok, "not a struct")
}

func TestFind(t *testing.T) {
	s := sample{Inner: inner{Mean: 4}}
	v, err := Find(reflect.ValueOf(s), "inner.mean")
	require.NoError(t, err)
	assert.Equal(t, 4.0, v.Float())
	_, err = Find(reflect.ValueOf(s), "inner.median")
	assert.EqualError(t, err, `no field "inner.median" (field.inner has no field "median"; known: min, mean)`)
	_, err = Find(reflect.ValueOf(s), "inner.min.x.y")
	assert.EqualError(t, err, `no field "inner.min.x.y" (inner.min holds a value of type int, not fields)`)
	_, err = Find(reflect.ValueOf(s), "")
	assert.ErrorContains(t, err, `no field ""`)
}
