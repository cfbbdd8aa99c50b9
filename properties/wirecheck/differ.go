package wirecheck

import (
	"context"
	"fmt"
	"strings"
)

// The outcomes a differential run compares, as a finding names them.
const (
	DiffExit       = "exit"        // the exit statuses differ
	DiffFinalEvent = "final-event" // the final events differ
	DiffRequests   = "requests"    // the request counts differ by more than the tolerance
)

// DiffConfig configures [Differ]: the search's bounds, how far apart the
// request counts may be, and the second agent's name.
type DiffConfig struct {
	SearchConfig
	// Tolerance is how many requests the two runs of a case may differ
	// by before their request counts count as different.
	Tolerance int
	// Against names the second agent in the result.
	Against string
}

// Differ runs the same schedules against two agents (two agents, two
// versions of one, or one under two settings): each case is played by a
// and then by b, and a case whose outcomes differ (exit status, final
// event, or request count beyond cfg.Tolerance) is a finding, re-run to
// tell a real difference from a flaky one and shrunk to a minimal
// schedule that still differs the same way, as [Search] does with a
// violation. Invariants are not checked (each outcome lists the ones it
// broke).
func Differ(ctx context.Context, a, b Player, o Options, cfg DiffConfig) (*Result, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("wirecheck: %w", err)
	}
	if cfg.Tolerance < 0 {
		return nil, fmt.Errorf("wirecheck: a negative tolerance (%d)", cfg.Tolerance)
	}
	res := &Result{Agent: o.Name, Against: cfg.Against, Limits: limitsOf(o)}
	res.Limits.Tolerance = cfg.Tolerance
	try := func(ctx context.Context, c Case) CaseResult {
		ra, errA := a(ctx, c, o)
		rb, errB := b(ctx, c, o)
		oa, ob := outcomeOf(ra, errA, o), outcomeOf(rb, errB, o)
		cr := CaseResult{API: c.API, Schedule: c.Steps, Faults: c.Faults(), Outcome: oa, Against: &ob}
		switch {
		case errA != nil:
		case errB != nil:
			cr.Error = "the second agent: " + ob.Error
		default:
			cr.Broken = Differences(oa, ob, cfg.Tolerance)
		}
		return cr
	}
	err := hunt(ctx, res, o, cfg.SearchConfig, try, func(f *Finding) {
		m := f.Minimal
		desc := fmt.Sprintf("wirecheck found %s and %s differing in %s on this schedule (served on the %s API): exit %d and %d, final events %q and %q, %d and %d requests.",
			agentName(o.Name, "check-agent"), agentName(cfg.Against, "the second agent"), strings.Join(f.Broken, ", "), m.API,
			m.Exit, m.Against.Exit, m.FinalEvent, m.Against.FinalEvent, len(m.Requests), len(m.Against.Requests))
		named := o
		named.Name = agentName(o.Name, "agent") + "-vs-" + agentName(cfg.Against, "other")
		f.Scenario, f.File = findingScenario(named, f, desc, nil)
	})
	return res, err
}

// Differences are the outcomes a and b differ in: DiffExit, DiffFinalEvent,
// DiffRequests (request counts more than tolerance apart), in that order.
func Differences(a, b Outcome, tolerance int) []string {
	var out []string
	if a.Exit != b.Exit {
		out = append(out, DiffExit)
	}
	if a.FinalEvent != b.FinalEvent {
		out = append(out, DiffFinalEvent)
	}
	if d := len(a.Requests) - len(b.Requests); d > tolerance || -d > tolerance {
		out = append(out, DiffRequests)
	}
	return out
}
