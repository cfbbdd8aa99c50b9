package replay

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: the
// code under test starts goroutines (tool calls, background summaries,
// model calls that can be abandoned, replays of the loop) that must all
// end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
