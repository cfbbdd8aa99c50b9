package properties

import (
	"fmt"
	"strconv"

	"github.com/loopsim/loopsim/loop"
)

// checkTurns: turnCount starts at 1 and changes only on next_turn (and on
// stop_hook_blocking when Policy.StopHookBlocksCountAsTurns), by exactly
// 1; it never exceeds Policy.MaxTurns when that is set; every
// iteration_start, the terminal and the final state agree with it.
func checkTurns(r Run) []Violation {
	p := r.Policy
	var out []Violation
	add := func(i int, format string, args ...any) {
		out = append(out, Violation{Invariant: "turns", Event: i, Detail: fmt.Sprintf(format, args...)})
	}
	turn := 1
	for i, e := range r.Result.Trace {
		switch x := e.(type) {
		case loop.IterationStart:
			if x.Turn != turn {
				add(i, "iteration %d starts at turn %d, the transitions so far give %d", x.Iteration, x.Turn, turn)
				turn = x.Turn
			}
		case loop.TransitionEvent:
			counts := x.Transition == loop.NextTurn ||
				(x.Transition == loop.StopHookBlocking && p.StopHookBlocksCountAsTurns)
			from, to, changed, err := turnChange(x.Changes)
			switch {
			case err != nil:
				add(i, "%s: %v", x.Transition, err)
			case counts && !changed:
				add(i, "%s left turn_count at %d; it must add 1", x.Transition, turn)
			case counts && (from != turn || to != turn+1):
				add(i, "%s changed turn_count %d -> %d; expected %d -> %d", x.Transition, from, to, turn, turn+1)
			case !counts && changed:
				add(i, "%s changed turn_count %d -> %d; only a turn may change it", x.Transition, from, to)
			}
			if changed && err == nil {
				turn = to
			}
			if p.MaxTurns > 0 && changed && to > p.MaxTurns {
				add(i, "%s took turn_count to %d, above max_turns = %d", x.Transition, to, p.MaxTurns)
			}
		case loop.TerminalEvent:
			if x.Turn != turn {
				add(i, "terminal %s reports turn %d, the transitions give %d", x.Terminal, x.Turn, turn)
			}
		}
	}
	if got := r.Result.State.TurnCount; got != turn {
		add(-1, "final state has turn_count %d, the transitions give %d", got, turn)
	}
	return out
}

// turnChange finds the turn_count change among a transition's changes.
func turnChange(cs []loop.FieldChange) (from, to int, changed bool, err error) {
	for _, c := range cs {
		if c.Field != "turn_count" {
			continue
		}
		from, err = strconv.Atoi(c.From)
		if err == nil {
			to, err = strconv.Atoi(c.To)
		}
		if err != nil {
			return 0, 0, false, fmt.Errorf("turn_count change %q -> %q is not a number: %w", c.From, c.To, err)
		}
		return from, to, true, nil
	}
	return 0, 0, false, nil
}
