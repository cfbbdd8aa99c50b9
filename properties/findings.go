package properties

import (
	"slices"

	"github.com/loopsim/loopsim/loop"
)

// Finding is a known way a policy breaks an invariant of docs/spec.md §5 (the
// harness exists to find such gaps), with the policy option that removes
// it.
type Finding struct {
	// Name identifies the finding.
	Name string
	// Invariant is the invariant it breaks, one of [InvariantNames].
	Invariant string
	// Summary says what happens.
	Summary string
	// Applies reports whether policy p is open to the finding.
	Applies func(p loop.Policy) bool
	// Explains reports whether violation v of run r is this finding.
	Explains func(r Run, v Violation) bool
	// Fix returns p with the option that removes the finding.
	Fix func(p loop.Policy) loop.Policy
}

// The names of the known findings.
const (
	// FindingUnboundedStopHookBlocks: with no cap on consecutive stop-hook
	// blocks, a hook that always blocks never lets the loop end.
	FindingUnboundedStopHookBlocks = "unbounded_stop_hook_blocks"
	// FindingEscalationAfterRecovery: every continue clears the
	// max-output override, so escalation fires again after a recovery.
	FindingEscalationAfterRecovery = "escalation_after_recovery"
	// FindingStopHookBlocksBetweenToolTurns: the block cap counts blocks
	// in a row and a tool turn starts it again, so a hook that keeps
	// blocking while the model works between its blocks never lets the
	// loop end; only max_turns bounds it (as in the released agents:
	// docs/profile-claude-code.md §5.2, docs/profile-codex.md §5).
	FindingStopHookBlocksBetweenToolTurns = "stop_hook_blocks_between_tool_turns"
)

// blockRunToHalt is how many stop_hook_blocking transitions near the end
// of a halted run mark it as held by the stop hooks (see [heldByStopHook]).
const blockRunToHalt = 10

// heldByStopHook reports whether the stop hooks kept a halted run going:
// among its last 4 × blockRunToHalt transitions at least blockRunToHalt
// are stop-hook blocks, the last blockRunToHalt hold one, and none is a
// tool turn. Other continues may come between the blocks (an escalation,
// a recovery, a collapse drain: each bounded on its own, each ends where
// the model answers and the hook blocks again); a tool turn would mean
// the model, not the hook, keeps the run going.
func heldByStopHook(ts []loop.Transition) bool {
	tail := ts[max(0, len(ts)-4*blockRunToHalt):]
	blocks, lastBlock := 0, -1
	for i, t := range tail {
		switch t {
		case loop.NextTurn:
			return false
		case loop.StopHookBlocking:
			blocks++
			lastBlock = i
		}
	}
	return blocks >= blockRunToHalt && lastBlock >= len(tail)-blockRunToHalt
}

// heldAcrossToolTurns reports whether the stop hooks kept a halted run
// going with the model's tool turns between their blocks: the blocks come
// on to the end, at least blockRunToHalt/2 of them in each half of the
// run's last quarter of transitions, and a tool turn among them. A run
// whose hook stopped blocking
// long before the halt (the model alone kept it going) is not.
func heldAcrossToolTurns(ts []loop.Transition) bool {
	tail := ts[len(ts)-len(ts)/4:]
	half := len(tail) / 2
	count := func(xs []loop.Transition) int {
		n := 0
		for _, t := range xs {
			if t == loop.StopHookBlocking {
				n++
			}
		}
		return n
	}
	return slices.Contains(tail, loop.NextTurn) && count(tail[:half]) >= blockRunToHalt/2 && count(tail[half:]) >= blockRunToHalt/2
}

// KnownFindings lists the known findings in a fixed order.
func KnownFindings() []Finding {
	return []Finding{
		{
			Name:      FindingUnboundedStopHookBlocks,
			Invariant: "termination",
			Summary:   "a stop hook that always blocks keeps the loop going forever when stop_hook_block_cap is 0",
			Applies:   func(p loop.Policy) bool { return p.StopHookBlockCap == 0 },
			Explains: func(r Run, v Violation) bool {
				if v.Invariant != "termination" || r.Policy.StopHookBlockCap != 0 || !r.Result.Halted {
					return false
				}
				return heldByStopHook(r.Result.Trace.Transitions())
			},
			Fix: func(p loop.Policy) loop.Policy { p.StopHookBlockCap = 8; return p },
		},
		{
			Name:      FindingEscalationAfterRecovery,
			Invariant: "escalate_once",
			Summary:   "escalation fires again after a recovery (or any other continue) clears the override, up to once per continue in a stretch",
			Applies:   func(p loop.Policy) bool { return p.Escalation && !p.EscalateOncePerStretch },
			Explains: func(r Run, v Violation) bool {
				if v.Invariant != "escalate_once" || !r.Policy.Escalation || r.Policy.EscalateOncePerStretch {
					return false
				}
				// the transition just before the repeated escalation
				// must be one that cleared the override, not next_turn
				var prev loop.Transition
				for _, x := range transitions(r.Result.Trace) {
					if x.index == v.Event {
						return prev != "" && prev != loop.NextTurn && prev != loop.MaxOutputTokensEscalate
					}
					prev = x.Transition
				}
				return false
			},
			Fix: func(p loop.Policy) loop.Policy { p.EscalateOncePerStretch = true; return p },
		},
		{
			Name:      FindingStopHookBlocksBetweenToolTurns,
			Invariant: "termination",
			Summary:   "a stop hook that keeps blocking, with the model's tool turns between its blocks, keeps the loop going forever when max_turns is 0: the block cap counts blocks in a row, and a tool turn starts it again",
			Applies:   func(p loop.Policy) bool { return p.MaxTurns == 0 },
			Explains: func(r Run, v Violation) bool {
				if v.Invariant != "termination" || r.Policy.MaxTurns != 0 || !r.Result.Halted {
					return false
				}
				return heldAcrossToolTurns(r.Result.Trace.Transitions())
			},
			Fix: func(p loop.Policy) loop.Policy { p.MaxTurns = maxTurnsFix; return p },
		},
	}
}

// maxTurnsFix is the turn cap the stop_hook_blocks_between_tool_turns
// finding's fix sets: the only bound either released agent has on such a
// run (Claude Code's --max-turns; Codex exec has none).
const maxTurnsFix = 20

// Unexplained returns the violations of r that no known finding explains.
func Unexplained(r Run, vs []Violation) []Violation {
	var out []Violation
	findings := KnownFindings()
	for _, v := range vs {
		explained := false
		for _, f := range findings {
			explained = explained || f.Explains(r, v)
		}
		if !explained {
			out = append(out, v)
		}
	}
	return out
}
