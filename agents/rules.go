package agents

import (
	"time"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/properties/wirecheck"
	"github.com/loopsim/loopsim/scenarios"
)

// A cell of the matrix is judged by the wire invariants of
// properties/wirecheck (docs/check-agent.md), the rules `simulate
// check-agent` holds any agent to, under the matrix's limits below: one
// set of rules for every agent, whichever tool ran it.

// StormFailures is how many failed requests in a row make a request
// storm in a cell (bounded-retries with a retry budget of
// StormFailures-1): every released agent's retry budget is smaller
// (Claude Code's is 10, Codex's 4 or 5 a layer).
const StormFailures = 20

// LoopCompactions is how many compaction requests without progress make
// a compaction loop in a cell (bounded-compaction): a session of a few
// messages needs one.
const LoopCompactions = 3

// RetryAfterSlack is how much sooner than its retry-after a request may
// come in a cell (the server's and the agent's clocks round
// differently).
const RetryAfterSlack = 100 * time.Millisecond

// Limits are the limits a cell of scenario s run with a time limit of
// limit is judged under: StormFailures, LoopCompactions,
// RetryAfterSlack, the limit as the session bound, and model as the
// model (the one the agent asked for; its output maximum is checked only
// when the catalog knows it).
func Limits(model string, limit time.Duration) wirecheck.Options {
	o := wirecheck.Options{MaxRetries: StormFailures - 1, MaxCompactions: LoopCompactions,
		RetryAfterSlack: RetryAfterSlack, SessionTimeout: limit, Name: "matrix"}
	if k, err := loop.LookupModel(model); err == nil {
		o.Model = k.ModelInfo
	} else {
		o.Model = wirecheck.DefaultModel
		o.Skip = []string{"max-tokens-within-model"}
	}
	return o.WithDefaults()
}

// Judge is the invariants the agent broke in run out (timedOut: killed
// at its time limit of limit), each as "invariant: what shows it". The
// case is the scenario's main answers on the API of the agent's first
// request.
func Judge(out *scenarios.AgentOutcome, timedOut bool, limit time.Duration) []string {
	if out == nil || len(out.Records) == 0 {
		return nil
	}
	first := out.Records[0]
	o := Limits(first.Model, limit)
	c := wirecheck.Case{API: first.API}
	if out.Scenario != nil && out.Scenario.Answers != nil {
		c.Steps = out.Scenario.Answers.Main
	}
	run := wirecheck.Run{Case: c, Records: out.Records, Exit: out.Exit, Failed: !timedOut && out.Exit != 0,
		Hung: timedOut, Elapsed: out.Elapsed, Limits: o, FinalEvent: scenarios.FinalEvent(out.Stdout, out.LastOutput)}
	var broken []string
	for _, v := range wirecheck.Check(run) {
		if !skipped(o, v.Invariant) {
			broken = append(broken, v.Error())
		}
	}
	return broken
}

func skipped(o wirecheck.Options, name string) bool {
	for _, s := range o.Skip {
		if s == name {
			return true
		}
	}
	return false
}
