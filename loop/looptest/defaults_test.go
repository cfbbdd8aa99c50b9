package looptest

import (
	"os"
	"testing"
	"time"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
)

func TestMain(m *testing.M) {
	// Broken seams that hang are cut short. The grace period stays at its
	// default: at 10ms a well-behaved tool on a loaded machine was still
	// running when the check cancelled it, returned its outcome, and was
	// reported as ignoring the cancellation (TestCheckTools flaked).
	timeout = 250 * time.Millisecond
	grace = 50 * time.Millisecond
	os.Exit(m.Run())
}

// The loop's default implementations honour their contracts.
func TestDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"OldestSnipper", CheckSnipper(loop.OldestSnipper{})},
		{"KeepRecentMicrocompactor", CheckMicrocompactor(loop.KeepRecentMicrocompactor{})},
		{"UsageCounter", CheckTokenCounter(loop.UsageCounter{})},
		{"SumCounter", CheckTokenCounter(loop.SumCounter{})},
		{"SummaryCompactor", CheckCompactor(func() loop.Compactor {
			return loop.SummaryCompactor{MaxCalls: 8, ReaskMissingTags: 1, DropOldestOnOverflow: true}
		})},
		{"SummaryCompactor (seed)", CheckCompactor(func() loop.Compactor { return loop.SummaryCompactor{MaxCalls: 1} })},
	} {
		assert.NoError(t, tc.err, tc.name)
	}
}

func TestSpanCollapser(t *testing.T) {
	assert.NoError(t, CheckCollapser(loop.SpanCollapser{}), "SpanCollapser")
}
