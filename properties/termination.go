package properties

import (
	"fmt"

	"github.com/loopsim/loopsim/loop"
)

// checkTermination: the run was not halted by the harness, its trace has
// exactly one terminal event, last, naming Result.Terminal, and it took no
// more iterations than [IterationBound] allows.
func checkTermination(r Run) []Violation {
	res := r.Result
	var out []Violation
	add := func(i int, format string, args ...any) {
		out = append(out, Violation{Invariant: "termination", Event: i, Detail: fmt.Sprintf(format, args...)})
	}
	if res.Halted {
		add(-1, "halted by the iteration limit after %d iterations without a terminal", res.Stats.Iterations)
	}
	terminals := 0
	for i, e := range res.Trace {
		x, ok := e.(loop.TerminalEvent)
		if !ok {
			continue
		}
		terminals++
		switch {
		case terminals > 1:
			add(i, "terminal %s is terminal #%d of the trace", x.Terminal, terminals)
		case i != len(res.Trace)-1:
			add(i, "terminal %s is followed by %d more events", x.Terminal, len(res.Trace)-1-i)
		case x.Terminal != res.Terminal:
			add(i, "trace ends in %s but the result says %q", x.Terminal, res.Terminal)
		}
	}
	if terminals == 0 && !res.Halted {
		add(-1, "the trace has no terminal event (result terminal %q)", res.Terminal)
	}
	if bound, ok := IterationBound(r.Policy, r.ScriptSteps); ok && res.Stats.Iterations > bound {
		add(-1, "%d iterations, above the bound %d (%s)", res.Stats.Iterations, bound, boundReason(r.Policy, r.ScriptSteps))
	}
	return out
}

// IterationBound is the most iterations a run may take under policy p
// with a script of scriptSteps steps (0: unbounded or unknown), and
// whether any bound is known.
//
// Script bound: every iteration that does not end the run sends at least
// one request, and every request consumes a step; the request after the
// last step fails and ends the run. So a finite script of n steps ends
// within n+1 iterations.
//
// Policy bound, when MaxTurns is set, a stop-hook block cap is set and
// the token budget is off (each of those can otherwise continue without
// limit). Within a turn (the iterations up to a next_turn), the counters
// the table resets only at next_turn bound the continues: at most
// B = StopHookBlockCap blocks; each of the B+1 stretches they delimit
// holds at most R = MaxOutputRecoveries recoveries; at most
// C = MaxReactiveCompactsInRow reactive compactions, M =
// MalformedToolUseRetries and E = EmptyReplyRetries retries. That is
// Y = B + (B+1)R + C + M + E continues. Escalation needs the override
// unset, which every other continue clears: at most Y+1 escalations, or 1
// with EscalateOncePerStretch. With X = Y + escalations, the turn takes at
// most X+1 iterations. Collapse drains (never two in a row) add at most
// X+1 more, but they also clear the override, so with collapse on and
// escalation repeatable no policy bound exists. MaxTurns turns.
//
// The smaller of the known bounds is returned.
func IterationBound(p loop.Policy, scriptSteps int) (int, bool) {
	bound, ok := 0, false
	if scriptSteps > 0 {
		bound, ok = scriptSteps+1, true
	}
	if pb, pok := policyIterationBound(p); pok && (!ok || pb < bound) {
		bound, ok = pb, true
	}
	return bound, ok
}

// policyIterationBound is the policy part of [IterationBound].
func policyIterationBound(p loop.Policy) (int, bool) {
	if p.MaxTurns <= 0 || p.StopHookBlockCap <= 0 || p.TokenBudget {
		return 0, false
	}
	if p.ContextCollapse && p.Escalation && !p.EscalateOncePerStretch {
		return 0, false
	}
	b, rec := p.StopHookBlockCap, p.MaxOutputRecoveries
	y := b + (b+1)*rec + p.MalformedToolUseRetries + p.EmptyReplyRetries
	if p.ReactiveCompact {
		y += p.MaxReactiveCompactsInRow
	}
	x := y
	switch {
	case p.Escalation && p.EscalateOncePerStretch:
		x++
	case p.Escalation:
		x += y + 1
	}
	perTurn := x + 1
	if p.ContextCollapse {
		perTurn = 2*x + 2
	}
	return p.MaxTurns * perTurn, true
}

// boundReason names which bound [IterationBound] used.
func boundReason(p loop.Policy, scriptSteps int) string {
	pb, pok := policyIterationBound(p)
	if scriptSteps > 0 && (!pok || scriptSteps+1 <= pb) {
		return fmt.Sprintf("script of %d steps + 1", scriptSteps)
	}
	return fmt.Sprintf("policy: max_turns %d, stop_hook_block_cap %d, max_output_recoveries %d", p.MaxTurns, p.StopHookBlockCap, p.MaxOutputRecoveries)
}
