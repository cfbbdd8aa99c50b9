package wirecheck_test

import (
	"context"
	"fmt"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/properties/wirecheck"
	"github.com/loopsim/loopsim/properties/wirecheck/sampleagent"
)

// One fault schedule served to an agent over the wire (the Messages API:
// a rate limit, then the answer), and the wire invariants checked over
// what the server recorded: the well-behaved agent keeps them all; one
// that retries before the retry-after has passed breaks
// retry-after-honoured. In a user's own go test, TestAgent draws the
// schedules with rapid and shrinks a violation to a scenario file.
func ExamplePlay() {
	c := wirecheck.Case{API: "messages", Steps: []fakemodel.Step{
		{Kind: fakemodel.RateLimited, RetryAfterMS: 200},
		{Text: "done"},
	}}
	for _, breaks := range []string{"", "retry-after-honoured"} {
		agent := func(ctx context.Context, s wirecheck.Session) error {
			return sampleagent.Agent{MaxRetries: 3, Breaks: breaks}.Run(ctx, sampleagent.Task{
				BaseURL: s.BaseURL, API: s.API, Model: s.Model, Tools: s.Tools, Prompt: s.Prompt})
		}
		run, err := wirecheck.Play(context.Background(), agent, c, wirecheck.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		var labels []string
		for _, r := range run.Records {
			labels = append(labels, r.Label())
		}
		fmt.Printf("agent breaking %q: requests %v, failed %v\n", breaks, labels, run.Failed)
		for _, v := range wirecheck.Check(run) {
			fmt.Println("  broke", v.Invariant)
		}
	}

	// Output:
	// agent breaking "": requests [M:429 M:text], failed false
	// agent breaking "retry-after-honoured": requests [M:429 M:text], failed false
	//   broke retry-after-honoured
}
