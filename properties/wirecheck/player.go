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
		a := a
		a.Timeout = o.SessionTimeout
		a.Env = append(slices.Clone(a.Env), APIVar+"="+c.API)
		started := time.Now() // the records' times' origin, for the exporters
		out, err := scenarios.RunAgent(ctx, s, a)
		var ae *scenarios.AgentError
		if errors.As(err, &ae) && ae.Outcome != nil && ctx.Err() == nil && ae.Outcome.Elapsed >= a.Timeout {
			out, err = ae.Outcome, nil // killed at the session bound: a hung session
		}
		if err != nil {
			return Run{}, fmt.Errorf("wirecheck: the agent's process: %w", err)
		}
		run := Run{Case: c, Limits: o, Records: out.Records, Exit: out.Exit, Elapsed: out.Elapsed, Started: started,
			FinalEvent: scenarios.FinalEvent(out.Stdout, out.LastOutput)}
		switch {
		case out.Elapsed >= a.Timeout:
			run.Hung, run.Exit = true, -1
			run.Err = fmt.Errorf("killed after %s: the session bound", a.Timeout)
		case out.Exit != 0:
			run.Failed, run.Err = true, fmt.Errorf("exit %d: %s", out.Exit, out.LastOutput)
		}
		return run, nil
	}
}
