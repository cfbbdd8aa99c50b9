package loop

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loop/ imports the standard library and internal/field only, and
// internal/field the standard library only (ARCHITECTURE.md).
func TestImportsTheStandardLibraryOnly(t *testing.T) {
	for dir, allowed := range map[string]string{".": "github.com/loopsim/loopsim/internal/field", "../internal/field": ""} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		require.NotEmpty(t, files, dir)
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
			require.NoError(t, err, name)
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				first, _, _ := strings.Cut(path, "/")
				assert.True(t, !strings.Contains(first, ".") || path == allowed, "%s imports %s", name, path)
			}
		}
	}
}
