package agents

import (
	"fmt"
	"time"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/properties/wirecheck"
	"github.com/loopsim/loopsim/scenarios"
)

// A cell of the matrix is judged by the wire invariants of
// properties/wirecheck (docs/check-agent.md), the rules `simulate
// check-agent` holds any agent to, under the matrix's limits below: one
// set of rules for every agent, whichever tool ran it; and by the two
// matrix-only rules below, which no invariant says.
const (
	// RuleRetriesWithoutBound: more than [StormFailures] requests
	// answered by a failure in one run, in a row or not: a loop that
	// alternates a failure with a reply, which bounded-retries (failures
	// in a row) does not see.
	RuleRetriesWithoutBound = "retries without bound"
	// RuleHangsAfterFailure: the agent neither exited nor sent a request
	// for the last half of its time limit: a hang, where session-ends
	// marks any run killed at its limit, a slow one too.
	RuleHangsAfterFailure = "hangs instead of exiting"
)

// InvariantBoundedCompaction names wirecheck's bounded-compaction, the
// rule of a compaction loop.
const InvariantBoundedCompaction = "bounded-compaction"

// StormFailures is how many failed requests in a row make a request
// storm in a cell (bounded-retries with a retry budget of
// StormFailures-1): every released agent's retry budget is smaller
// (Claude Code's is 10, Codex's 4 or 5 a layer).
const StormFailures = 20

// LoopCompactions is how many compaction requests in a row without
// progress (at most one main reply since the one before each) make a
// compaction loop in a cell (bounded-compaction): a session of a few
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

// Judge is the invariants and matrix-only rules the agent broke in run
// out (timedOut: killed at its time limit of limit), each as "rule: what
// shows it". The case is the scenario's main answers on the API of the
// agent's first request.
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
	return append(broken, matrixOnly(out, timedOut, limit)...)
}

// matrixOnly are the matrix-only rules run out broke.
func matrixOnly(out *scenarios.AgentOutcome, timedOut bool, limit time.Duration) []string {
	var broken []string
	failures := 0
	for _, r := range out.Records {
		if failed(r) {
			failures++
		}
	}
	if failures > StormFailures {
		broken = append(broken, fmt.Sprintf("%s: %d failed requests", RuleRetriesWithoutBound, failures))
	}
	if timedOut && len(out.Calls) > 0 {
		if idle := limit - out.Calls[len(out.Calls)-1].End; idle > limit/2 {
			broken = append(broken, fmt.Sprintf("%s: no request for the last %.0f s before the %.0f s limit", RuleHangsAfterFailure, idle.Seconds(), limit.Seconds()))
		}
	}
	return broken
}

// failed says whether the server answered r with a failure.
func failed(r wire.Record) bool {
	switch r.Answer {
	case "text", "tool", "rejected", "fault":
		return false
	}
	return true
}

func skipped(o wirecheck.Options, name string) bool {
	for _, s := range o.Skip {
		if s == name {
			return true
		}
	}
	return false
}
