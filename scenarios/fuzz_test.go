package scenarios

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse feeds the loader arbitrary bytes, seeded with the library and
// the broken corpus: no input may make it panic or hang, and whatever it
// accepts must be a scenario it can build fakes for.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"library/*.yaml", "testdata/broken/*.yaml"} {
		files, err := filepath.Glob(pattern)
		require.NoError(f, err)
		for _, file := range files {
			data, err := os.ReadFile(file)
			require.NoError(f, err)
			f.Add(data)
		}
	}
	f.Add([]byte("a: &x [*x]"))
	f.Add([]byte("script: [{if: max_tokens >= 1, then: {then: {}}, else: {if: x}}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			require.Nil(t, s, "Parse returned a scenario and an error: %v", err)
			require.NotEmpty(t, err.Error(), "empty error message")
			return
		}
		s.fixture(func() {})
	})
}
