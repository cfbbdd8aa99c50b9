package loop_test

import (
	"context"
	"fmt"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// Testing a loop policy with a scripted fake: the claude-code profile,
// a stop hook that always blocks, and a model that always answers. The
// profile's cap of 8 consecutive blocks ends the query.
func Example() {
	model := &fakemodel.Model{Script: []fakemodel.Step{{Text: "done", Repeat: fakemodel.Forever}}}
	hooks := &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Block: "tests still fail"}}}
	cfg := loop.Config{
		Policy:    loop.ClaudeCode(),
		Model:     model,
		Primary:   loop.ModelInfo{Name: "opus", ContextWindow: 1_000_000, MaxOutputTokens: 128_000},
		StopHooks: hooks,
	}
	res, err := loop.Run(context.Background(), cfg, []loop.Message{loop.UserText("fix the test")})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Terminal, len(model.Requests), "requests,", len(res.Trace.Transitions()), "transitions")
	// Output: completed 9 requests, 8 transitions
}
