package reports

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlayLibrary: the library plays the same twice (a record's
// behaviour is a function of the commit), every scenario that runs has a
// trace and a digest, and none is judged an error.
func TestPlayLibrary(t *testing.T) {
	a, err := PlayLibrary(context.Background())
	require.NoError(t, err)
	b, err := PlayLibrary(context.Background())
	require.NoError(t, err)
	require.NotEmpty(t, a.Scenarios)
	assert.Equal(t, a, b)
	assert.Empty(t, CompareBehaviour(a, b))
	for _, s := range a.Scenarios {
		assert.NotEqual(t, VerdictError, s.Verdict, "%s: %s", s.Name, s.Error)
		if s.Verdict != VerdictSkip {
			assert.Len(t, s.Digest, 64, s.Name)
			assert.NotEmpty(t, s.Trace, s.Name)
			assert.GreaterOrEqual(t, s.Requests, 0, s.Name)
		}
	}
}
