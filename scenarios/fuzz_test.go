package scenarios

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds the loader arbitrary bytes, seeded with the library and
// the broken corpus: no input may make it panic or hang, and whatever it
// accepts must be a scenario it can build fakes for.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"library/*.yaml", "testdata/broken/*.yaml"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("a: &x [*x]"))
	f.Add([]byte("script: [{if: max_tokens >= 1, then: {then: {}}, else: {if: x}}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			if s != nil {
				t.Fatalf("Parse returned a scenario and an error: %v", err)
			}
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		s.fixture(func() {})
	})
}
