package scenarios

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMatrixScenarios: the fault scenarios of `simulate matrix`
// (matrix/) load, are named after their files, and do in process what
// they expect (the claude-code profile's loop), as the library's do.
func TestMatrixScenarios(t *testing.T) {
	list, err := Load("matrix")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(list), 20, "the matrix has at least 20 scenarios")
	for _, s := range list {
		t.Run(s.Name, func(t *testing.T) {
			assert.Equal(t, filepath.Join("matrix", s.Name+".yaml"), s.File)
			require.NotNil(t, s.Answers, "a matrix scenario answers by purpose, so side requests do not take its steps")
			out, err := Run(context.Background(), s)
			require.NoError(t, err)
			assert.True(t, out.Passed(), "%s (-want +got):\n%s", s.File, out.Diff())
		})
	}
}
