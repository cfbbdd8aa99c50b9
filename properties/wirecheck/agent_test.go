package wirecheck

import (
	"context"

	"github.com/loopsim/loopsim/properties/wirecheck/sampleagent"
)

// testAgent is package sampleagent's loop as an [Agent]: correct, or
// broken on purpose to break the invariant named by breaks.
type testAgent struct {
	maxRetries int
	// breaks names the invariant the agent breaks; empty: none.
	breaks string
}

func (a testAgent) run(ctx context.Context, s Session) error {
	return sampleagent.Agent{MaxRetries: a.maxRetries, Breaks: a.breaks}.Run(ctx, sampleagent.Task{
		BaseURL: s.BaseURL, API: s.API, Model: s.Model, Tools: s.Tools, Prompt: s.Prompt})
}
