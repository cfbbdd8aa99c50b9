package looptest

import (
	"os"
	"testing"
	"time"

	"github.com/loopsim/loopsim/loop"
)

func TestMain(m *testing.M) {
	// Broken seams that hang are cut short.
	timeout = 250 * time.Millisecond
	grace = 10 * time.Millisecond
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
		if tc.err != nil {
			t.Errorf("%s:\n%v", tc.name, tc.err)
		}
	}
}

func TestSpanCollapser(t *testing.T) {
	if err := CheckCollapser(loop.SpanCollapser{}); err != nil {
		t.Errorf("SpanCollapser:\n%v", err)
	}
}
