// Package replay replays a real session (a transcript's calls) through
// the loop under other settings, a policy and a model each, and measures
// the real session alongside: what the same work would have cost and
// where it would have compacted (simulate replay-session). It is the
// simulator's counterfactual for one session; package sim plays
// stochastic episodes instead.
package replay

import (
	"context"
	"fmt"
	"slices"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sim"
	"github.com/loopsim/loopsim/transcript"
)

// Side is one side of a session replay: the real session or its
// replay under a setting.
type Side struct {
	// Label says which side it is.
	Label string `json:"label"`
	// Contexts are the context of each call, in call order; CallOf gives,
	// for each, the real call it stands for (a replay can ask the same
	// call twice, or stop early).
	Contexts []int `json:"contexts"`
	CallOf   []int `json:"call_of"`
	// Compactions are the calls before which a compaction happened, by
	// real call index.
	Compactions []int `json:"compactions"`
	// Tokens is input plus output over every request (compaction requests
	// included); CostMicroUSD their cost.
	Tokens       int64 `json:"tokens"`
	CostMicroUSD int64 `json:"cost_micro_usd"`
	// Requests counts the requests, Peak the largest context.
	Requests int `json:"requests"`
	Peak     int `json:"peak"`
	// Terminal is how the replay ended ("" for the real session).
	Terminal string `json:"terminal,omitempty"`
	// Notes say what was estimated.
	Notes []string `json:"notes,omitempty"`
}

// Result is a real session replayed through the loop.
type Result struct {
	// Name names the session log.
	Name string `json:"name"`
	// Calls is the number of the session's calls.
	Calls int `json:"calls"`
	// Summary is the size of a compaction's summary in the replays.
	Summary int `json:"summary"`
	// Real is what really happened; Sides the replays, in the order of
	// the settings given.
	Real  Side   `json:"real"`
	Sides []Side `json:"replays"`
	// Settings are the replays' settings.
	Settings []sim.Setting `json:"settings"`
}

// Steps turns a session's calls into the steps of
// [fakemodel.Session]: each call's output that stays in the context
// (reasoning the log reports apart is left out) and tool calls, and what
// the context gained before the next call besides that output. Across a
// real compaction the gain is unknown: the session's median gain stands
// in. Where the context shrank without a compaction (the agent cleared
// something) the replay cannot shrink it: the gain is 0 and the shrink is
// taken from the gains that follow, so the replay runs above the real
// context only until it has caught up. It also returns the calls'
// contexts and the calls a compaction came before.
func Steps(s *transcript.Session) (steps []fakemodel.SessionStep, contexts, compactedBefore []int) {
	var calls []transcript.Call
	var compacted []bool // compacted[i]: a compaction came before call i
	pending := false
	for _, e := range s.Events {
		switch e.Kind {
		case transcript.EventCall:
			calls = append(calls, e.Call)
			compacted = append(compacted, pending)
			pending = false
		case transcript.EventCompaction:
			pending = true
		}
	}
	var gains []int
	adds := make([]int, len(calls))
	known := make([]bool, len(calls))
	debt := 0 // what the real context shrank by and the replay has not yet
	for i := 0; i+1 < len(calls); i++ {
		g := calls[i+1].Usage.Context() - calls[i].Usage.Context() - kept(calls[i])
		if compacted[i+1] {
			debt = 0
			continue
		}
		if g < 0 {
			debt, g = debt-g, 0
		} else {
			pay := min(g, debt)
			g, debt = g-pay, debt-pay
		}
		adds[i], known[i] = g, true
		gains = append(gains, g)
	}
	median := 0
	if len(gains) > 0 {
		slices.Sort(gains)
		median = gains[len(gains)/2]
	}
	for i, c := range calls {
		if !known[i] {
			adds[i] = median
		}
		steps = append(steps, fakemodel.SessionStep{Output: kept(c), Tools: c.Tools, Adds: adds[i]})
		contexts = append(contexts, c.Usage.Context())
		if compacted[i] {
			compactedBefore = append(compactedBefore, i)
		}
	}
	return steps, contexts, compactedBefore
}

// Session replays the session under each setting (its policy and
// model; the workload is not used) and measures the real session
// alongside. The real session's tokens and cost are its calls' usage,
// plus an estimate for each compaction's own request (not in the main
// log): its starting context read from the cache, the summary written as
// output.
func Session(ctx context.Context, s *transcript.Session, settings []sim.Setting, prices sim.Prices) (*Result, error) {
	steps, contexts, compacted := Steps(s)
	if len(steps) < 2 {
		return nil, fmt.Errorf("replay %s: %d calls: nothing to replay", s.Name, len(steps))
	}
	r := &Result{Name: s.Name, Calls: len(steps), Settings: settings}
	var after []int
	for _, i := range compacted {
		after = append(after, contexts[i])
	}
	if len(after) > 0 {
		sum := 0
		for _, a := range after {
			sum += a
		}
		r.Summary = 85 * sum / len(after) / 100
	} else {
		r.Summary = int(settings[0].Workload.Summary.Median)
	}
	real := Side{Label: "real session", Contexts: contexts, Compactions: compacted}
	for i, c := range s.Calls() {
		real.CallOf = append(real.CallOf, i)
		real.Tokens += int64(c.Usage.Context() + c.Usage.Output)
		real.CostMicroUSD += prices.MicroUSD(int64(c.Usage.Input), int64(c.Usage.CacheWrite), int64(c.Usage.CacheRead), int64(c.Usage.Output))
		real.Requests++
		real.Peak = max(real.Peak, c.Usage.Context())
	}
	for _, i := range compacted {
		if i > 0 {
			pre := contexts[i-1]
			real.Tokens += int64(pre + r.Summary)
			real.CostMicroUSD += prices.MicroUSD(0, 0, int64(pre), int64(r.Summary))
			real.Requests++
		}
	}
	reasoning := 0
	for _, c := range s.Calls() {
		reasoning += c.Usage.Reasoning
	}
	if reasoning > 0 {
		real.Notes = append(real.Notes, fmt.Sprintf("%d reasoning output tokens are in the real figures, not in the replays (they do not stay in the context)", reasoning))
	}
	if len(compacted) > 0 {
		real.Notes = append(real.Notes, fmt.Sprintf("each compaction's own request (not in the log) estimated: its context read from the cache, a %d-token summary written", r.Summary))
	}
	r.Real = real
	for _, set := range settings {
		side, err := replayOnce(ctx, contexts[0], steps, r.Summary, set, prices)
		if err != nil {
			return nil, fmt.Errorf("replay %s under %s: %w", s.Name, set.Name, err)
		}
		r.Sides = append(r.Sides, side)
	}
	return r, nil
}

// replayOnce replays the steps under one setting.
func replayOnce(ctx context.Context, start int, steps []fakemodel.SessionStep, summary int, set sim.Setting, prices sim.Prices) (Side, error) {
	m := &fakemodel.Session{Start: start, Steps: steps, Summary: summary, Window: set.Model.ContextWindow}
	side := Side{Label: set.Name}
	pending := 0
	met := &sim.Meter{}
	cfg := loop.Config{Policy: set.Policy, Model: m, Primary: set.Model, Tools: m, ToolNames: []string{"Replay"},
		DiscardTrace: true, IterationLimit: 4*len(steps) + 100,
		Observer: func(e loop.Event) {
			met.Observe(e)
			switch x := e.(type) {
			case loop.RequestEvent:
				if x.Purpose == loop.PurposeMain {
					pending = x.InputTokens
				}
			case loop.ResponseEvent:
				if x.Purpose == loop.PurposeMain {
					side.Contexts = append(side.Contexts, pending)
				}
			case loop.Compaction:
				if x.OK {
					side.Compactions = append(side.Compactions, len(side.Contexts))
				}
			}
		}}
	res, err := loop.Run(ctx, cfg, m.Initial())
	if err != nil {
		return side, err
	}
	side.CallOf = m.StepOf
	if len(side.CallOf) > len(side.Contexts) {
		side.CallOf = side.CallOf[:len(side.Contexts)]
	}
	// a compaction before the k-th reply stands before the call it replays
	for i, k := range side.Compactions {
		if k < len(side.CallOf) {
			side.Compactions[i] = side.CallOf[k]
		} else {
			side.Compactions[i] = len(steps)
		}
	}
	var ep sim.Episode
	met.Finish(&ep, res, prices)
	side.Tokens, side.CostMicroUSD = ep.Values[sim.Tokens], ep.Values[sim.CostMicroUSD]
	side.Requests, side.Peak = int(ep.Values[sim.Requests]), int(ep.Values[sim.PeakContext])
	side.Terminal = string(res.Terminal)
	if res.Halted {
		side.Terminal = "halted"
	}
	return side, nil
}

// Replayed is the number of distinct real calls the side replayed.
func (s Side) Replayed() int {
	n := 0
	for i, c := range s.CallOf {
		if i == 0 || c != s.CallOf[i-1] {
			n++
		}
	}
	return n
}

// kept is the output of a call that the next call's context carries.
func kept(c transcript.Call) int { return c.Usage.Output - c.Usage.Reasoning }
