package properties

import (
	"fmt"
	"strings"

	"github.com/loopsim/loopsim/loop"
)

// Coverage counts the transitions and terminals a set of runs reached.
// The zero Coverage is empty and ready to use.
type Coverage struct {
	Transitions map[loop.Transition]int
	Terminals   map[loop.Terminal]int
	// Halted counts runs stopped by the iteration limit.
	Halted int
	// Runs counts the runs added.
	Runs int
}

// Add counts the transitions and the terminal of one run.
func (c *Coverage) Add(res *loop.Result) {
	if c.Transitions == nil {
		c.Transitions = map[loop.Transition]int{}
		c.Terminals = map[loop.Terminal]int{}
	}
	c.Runs++
	for _, t := range res.Trace.Transitions() {
		c.Transitions[t]++
	}
	if res.Halted {
		c.Halted++
		return
	}
	c.Terminals[res.Terminal]++
}

// Merge adds the counts of o.
func (c *Coverage) Merge(o Coverage) {
	if c.Transitions == nil {
		c.Transitions = map[loop.Transition]int{}
		c.Terminals = map[loop.Terminal]int{}
	}
	for k, n := range o.Transitions {
		c.Transitions[k] += n
	}
	for k, n := range o.Terminals {
		c.Terminals[k] += n
	}
	c.Halted += o.Halted
	c.Runs += o.Runs
}

// Missing lists, in the fixed orders of loop.Transitions and
// loop.Terminals, what [Reachable] says policy p can reach but c never
// saw.
func (c Coverage) Missing(p loop.Policy) []string {
	ts, terms := Reachable(p)
	var out []string
	for _, t := range ts {
		if c.Transitions[t] == 0 {
			out = append(out, "transition "+string(t))
		}
	}
	for _, t := range terms {
		if c.Terminals[t] == 0 {
			out = append(out, "terminal "+string(t))
		}
	}
	return out
}

// String lists every count in the fixed orders of loop.Transitions and
// loop.Terminals.
func (c Coverage) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d runs, %d halted\n", c.Runs, c.Halted)
	for _, t := range loop.Transitions {
		fmt.Fprintf(&b, "  %-30s %d\n", t, c.Transitions[t])
	}
	for _, t := range loop.Terminals {
		fmt.Fprintf(&b, "  %-30s %d\n", t, c.Terminals[t])
	}
	return b.String()
}

// generatedMaxOutputs are the primary models' maximum outputs the case
// generators draw from.
var generatedMaxOutputs = []int{64_000, 128_000, 16_000, 4_000}

// streamCutBudget is how many continuations after a cut stream a run may
// make in a row (docs/spec.md §2.4.3): stream_retries with
// stream_cut_keeps_reply, else max_output_recoveries.
func streamCutBudget(p loop.Policy) int {
	if p.StreamCutKeepsReply {
		return p.StreamRetries
	}
	return p.MaxOutputRecoveries
}

// Reachable lists the transitions and terminals the generated cases can
// reach under policy p (with the caller's settings the generators vary:
// stop hooks, tools, max turns, a token budget, a fallback model), in the
// orders of loop.Transitions and loop.Terminals. It is read from docs/spec.md §2
// and the policy's switches, not from the loop.
func Reachable(p loop.Policy) ([]loop.Transition, []loop.Terminal) {
	escalates := false
	for _, m := range generatedMaxOutputs {
		info := loop.ModelInfo{MaxOutputTokens: m}
		escalates = escalates || min(p.EscalatedMaxTokens, m) > p.MaxTokens(info)
	}
	autoCompact := p.AutoCompact && !p.ContextCollapse
	primaryReactiveOnly := false
	for _, m := range p.ReactiveOnlyModels {
		primaryReactiveOnly = primaryReactiveOnly || m == primaryName
	}
	transitionOn := map[loop.Transition]bool{
		loop.NextTurn:                true,
		loop.CollapseDrainRetry:      p.ContextCollapse,
		loop.ReactiveCompactRetry:    p.ReactiveCompact,
		loop.MaxOutputTokensEscalate: p.Escalation && escalates,
		loop.MaxOutputTokensRecovery: p.MaxOutputRecoveries > 0,
		loop.StopHookBlocking:        true,
		loop.TokenBudgetContinuation: p.TokenBudget,
		loop.MalformedToolUseRetry:   p.MalformedToolUseRetries > 0,
		loop.EmptyReplyRetry:         p.EmptyReplyRetries > 0,
		loop.StreamErrorRecovery:     p.StreamErrorRecovery && streamCutBudget(p) > 0,
	}
	terminalOn := map[loop.Terminal]bool{
		// with auto_compact_failure_ends_run a failed compaction ends the
		// run before the check; only one that succeeds yet leaves the
		// context over the limit reaches it, which the generators do not
		// make
		loop.BlockingLimit: !primaryReactiveOnly && !p.ContextCollapse &&
			!(p.ReactiveOwnsOverflow && p.ReactiveCompact && autoCompact) &&
			!(p.AutoCompactFailureEndsRun && autoCompact),
		loop.ModelError:                true, // a script that runs out is a harness error
		loop.ImageError:                true,
		loop.AbortedStreaming:          true,
		loop.AbortedTools:              true,
		loop.HookStopped:               true,
		loop.PromptTooLong:             true,
		loop.StopHookPrevented:         true,
		loop.Completed:                 true,
		loop.MaxTurns:                  true,
		loop.APIError:                  p.APIErrorTerminal == loop.APIError || p.TruncationExhaustedTerminal == loop.APIError,
		loop.RapidRefillBreaker:        p.RapidRefillWindow > 0 && autoCompact && !primaryReactiveOnly,
		loop.MalformedToolUseExhausted: p.MalformedToolUseRetries > 0,
	}
	var ts []loop.Transition
	for _, t := range loop.Transitions {
		if transitionOn[t] {
			ts = append(ts, t)
		}
	}
	var terms []loop.Terminal
	for _, t := range loop.Terminals {
		if terminalOn[t] {
			terms = append(terms, t)
		}
	}
	return ts, terms
}
