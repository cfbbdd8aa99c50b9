package wirecheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/loopsim/loopsim/scenarios"
)

// Player plays one case against an agent and returns the finished run.
// The error is a case that could not be played or judged (the server did
// not start, the agent's command did not start or never called the
// server, ctx ended); a session that failed or hung is a run, not an
// error.
type Player func(ctx context.Context, c Case, o Options) (Run, error)

// APIVar is the variable that names a case's API to a process agent
// (messages, chat, responses or gemini), for an agent that can speak
// several: every API's base URL is set, so one that speaks one API
// ignores it.
const APIVar = "LOOPSIM_API"

// InProcess is an in-process agent as a [Player]: [Play].
func InProcess(agent Agent) Player {
	return func(ctx context.Context, c Case, o Options) (Run, error) {
		return Play(ctx, agent, c, o)
	}
}

// Process is a process agent as a [Player]: each case runs a's command
// once, as `simulate agent` does (scenarios.RunAgent: its own process
// group, a fresh workspace from a.Prepare, a preset's temporary home
// for one, every API's base-URL variable and a dummy key, the prompt in
// LOOPSIM_PROMPT, [APIVar] naming the case's API), killed when
// o.SessionTimeout ends. A non-zero exit is a failed session; the run's
// FinalEvent is the agent's last word (scenarios.FinalEvent).
func Process(a scenarios.Agent) Player {
	return func(ctx context.Context, c Case, o Options) (Run, error) {
		o = o.withDefaults()
		s, _, err := c.scenario(o, "wirecheck-case", "a case wirecheck drew", placeholder)
		if err != nil {
			return Run{}, err
		}
		run, _, err := playProcess(ctx, s, c, a, o)
		return run, err
	}
}

// playProcess runs a's command once against a server playing s (case c
// as a scenario), killed at o's session bound, and returns the run as
// the invariants see it and what the agent did. A session killed at the
// bound is a hung run, not an error.
func playProcess(ctx context.Context, s *scenarios.Scenario, c Case, a scenarios.Agent, o Options) (Run, *scenarios.AgentOutcome, error) {
	a.Timeout = o.SessionTimeout
	a.Env = append(slices.Clone(a.Env), APIVar+"="+c.API)
	started := time.Now() // the records' times' origin, for the exporters
	out, err := scenarios.RunAgent(ctx, s, a)
	var ae *scenarios.AgentError
	if errors.As(err, &ae) && ae.Outcome != nil && ctx.Err() == nil && ae.Outcome.Elapsed >= a.Timeout {
		out, err = ae.Outcome, nil // killed at the session bound: a hung session
	}
	if err != nil {
		if ae != nil && ae.Outcome != nil {
			return Run{}, ae.Outcome, fmt.Errorf("wirecheck: the agent's process: %w", err)
		}
		return Run{}, nil, fmt.Errorf("wirecheck: the agent's process: %w", err)
	}
	return agentRun(c, o, out, out.Elapsed >= a.Timeout, started), out, nil
}

// ReplayFinding plays a finding's scenario file (one `simulate
// check-agent` wrote, with a recheck section) to agent a once, as the
// search played its case (the finding's API in [APIVar], killed at the
// file's session bound, a session killed there hung, not unjudged), and
// re-checks the invariants the file names under its limits. The outcome
// is what the run collected, also when the error says it could not be
// judged.
func ReplayFinding(ctx context.Context, s *scenarios.Scenario, a scenarios.Agent) (Rechecked, *scenarios.AgentOutcome, error) {
	o, err := RecheckOptions(s)
	if err != nil {
		return Rechecked{}, nil, err
	}
	run, out, err := playProcess(ctx, s, RecheckCase(s), a, o)
	if err != nil {
		return Rechecked{}, out, err
	}
	return recheck(s.Recheck.Invariants, run), out, nil
}
