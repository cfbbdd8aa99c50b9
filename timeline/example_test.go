package timeline_test

import (
	"context"
	"fmt"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/timeline"
)

// A run's trace as a timeline Perfetto opens: here a rate limit the
// retry layer waits out (its retry-after and jitter, in simulated time),
// then the answer. Times are simulated, so the
// same trace always gives the same file; Write writes it as JSON.
func ExampleBuild() {
	model := &fakemodel.Model{Script: []fakemodel.Step{{Kind: fakemodel.RateLimited, RetryAfterMS: 1500}, {Text: "done"}}}
	res, err := loop.Run(context.Background(), loop.Config{Policy: loop.ClaudeCode(), Model: model,
		Primary: loop.ModelInfo{Name: "opus", ContextWindow: 200_000, MaxOutputTokens: 8_000}}, []loop.Message{loop.UserText("hi")})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := timeline.Build([]timeline.Episode{{Name: "rate limited once", Trace: res.Trace}})
	for _, e := range f.TraceEvents {
		switch e.Ph {
		case timeline.PhaseComplete:
			fmt.Printf("slice on track %d: %s at %d ms for %d ms\n", e.Tid, e.Name, e.Ts/1000, *e.Dur/1000)
		case timeline.PhaseInstant:
			fmt.Printf("mark at %d ms: %s\n", e.Ts/1000, e.Name)
		}
	}

	// Output:
	// slice on track 2: main #1 at 1 ms for 1 ms
	// mark at 2 ms: fault: rate_limited
	// mark at 3 ms: retry #2
	// slice on track 2: main #2 at 1752 ms for 1 ms
	// mark at 1755 ms: terminal completed
	// slice on track 1: iteration 1 at 0 ms for 1756 ms
}
