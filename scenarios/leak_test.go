package scenarios

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: the
// code under test starts goroutines (tool calls, background summaries,
// model calls that can be abandoned, simulation workers) that must all
// end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(removeTestAgent))
}
