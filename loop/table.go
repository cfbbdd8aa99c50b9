package loop

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// after returns s as the continue t leaves it: the docs/spec.md §3 table, plus the
// counters of the policy's extra guards. Fields a transition sets to a
// value it computed (the escalated cap, the messages) are set by the
// caller afterwards.
func (s State) after(t Transition) State {
	s.apply(t)
	return s
}

// apply is [State.after] in place: it spares the loop a copy of the
// state, which holds pointers, on every turn.
func (s *State) apply(t Transition) {
	s.Transition = t
	s.MaxOutputTokensOverride = 0
	if t != StopHookBlocking && t != NextTurn {
		s.StopHookActive = false
	}
	switch t {
	case NextTurn:
		s.MaxOutputTokensRecoveryCount = 0
		s.HasAttemptedReactiveCompact = false
		s.ReactiveCompactsInRow = 0
		s.TurnCount++
		s.StopHookBlocksInRow = 0
		s.EscalatedThisStretch = false
		s.MalformedToolUseRetries = 0
		s.EmptyReplyRetries = 0
	case CollapseDrainRetry:
	case ReactiveCompactRetry:
		s.HasAttemptedReactiveCompact = true
		s.ReactiveCompactsInRow++
		s.AutoCompactTracking = nil
	case MaxOutputTokensEscalate:
		s.EscalatedThisStretch = true
	case MaxOutputTokensRecovery:
		s.MaxOutputTokensRecoveryCount++
	case StopHookBlocking:
		s.MaxOutputTokensRecoveryCount = 0
		s.StopHookActive = true
		s.StopHookBlocksInRow++
	case TokenBudgetContinuation:
		s.MaxOutputTokensRecoveryCount = 0
		s.HasAttemptedReactiveCompact = false
		s.ReactiveCompactsInRow = 0
	case MalformedToolUseRetry:
		s.MalformedToolUseRetries++
	case EmptyReplyRetry:
		s.EmptyReplyRetries++
	case StreamErrorRecovery:
		s.MaxOutputTokensRecoveryCount++
	}
}

// reactiveAttempts is how many reactive compactions ran in this stretch,
// as the guard reads it: none unless hasAttemptedReactiveCompact is set
// (the seed's one-shot guard), and then the count, which only a profile
// allowing more than one needs. The count is reset and raised by the
// same transitions that reset and set the flag.
func (s State) reactiveAttempts() int {
	if !s.HasAttemptedReactiveCompact {
		return 0
	}
	return max(s.ReactiveCompactsInRow, 1)
}

// diffState appends to out the state fields that differ between a and b,
// by the names the trace uses, in a fixed order.
func diffState(out []FieldChange, a, b *State) []FieldChange {
	add := func(field, from, to string) {
		out = append(out, FieldChange{Field: field, From: from, To: to})
	}
	ints := func(field string, x, y int) {
		if x != y {
			add(field, itoa(x), itoa(y))
		}
	}
	bools := func(field string, x, y bool) {
		if x != y {
			add(field, strconv.FormatBool(x), strconv.FormatBool(y))
		}
	}
	ints("messages", len(a.Messages), len(b.Messages))
	if a.ToolUseContext.Model != b.ToolUseContext.Model {
		add("model", a.ToolUseContext.Model, b.ToolUseContext.Model)
	}
	if !slices.Equal(a.ToolUseContext.Tools, b.ToolUseContext.Tools) {
		add("tools", strings.Join(a.ToolUseContext.Tools, ","), strings.Join(b.ToolUseContext.Tools, ","))
	}
	if a.ToolUseContext.AgentID != b.ToolUseContext.AgentID {
		add("agent_id", a.ToolUseContext.AgentID, b.ToolUseContext.AgentID)
	}
	if x, y := a.AutoCompactTracking, b.AutoCompactTracking; x != y && (x == nil || y == nil || *x != *y) {
		// the strings only when the values differ: most iterations
		// carry an equal tracking in a new pointer
		if ta, tb := trackingString(a.AutoCompactTracking), trackingString(b.AutoCompactTracking); ta != tb {
			add("auto_compact_tracking", ta, tb)
		}
	}
	ints("max_output_tokens_recovery_count", a.MaxOutputTokensRecoveryCount, b.MaxOutputTokensRecoveryCount)
	bools("has_attempted_reactive_compact", a.HasAttemptedReactiveCompact, b.HasAttemptedReactiveCompact)
	if a.MaxOutputTokensOverride != b.MaxOutputTokensOverride {
		add("max_output_tokens_override", overrideString(a.MaxOutputTokensOverride), overrideString(b.MaxOutputTokensOverride))
	}
	if a.PendingToolUseSummary != b.PendingToolUseSummary {
		add("pending_tool_use_summary", pendingString(a.PendingToolUseSummary), pendingString(b.PendingToolUseSummary))
	}
	bools("stop_hook_active", a.StopHookActive, b.StopHookActive)
	ints("turn_count", a.TurnCount, b.TurnCount)
	if a.Transition != b.Transition {
		add("transition", string(a.Transition), string(b.Transition))
	}
	ints("reactive_compacts_in_row", a.ReactiveCompactsInRow, b.ReactiveCompactsInRow)
	ints("stop_hook_blocks_in_row", a.StopHookBlocksInRow, b.StopHookBlocksInRow)
	bools("escalated_this_stretch", a.EscalatedThisStretch, b.EscalatedThisStretch)
	ints("malformed_tool_use_retries", a.MalformedToolUseRetries, b.MalformedToolUseRetries)
	ints("empty_reply_retries", a.EmptyReplyRetries, b.EmptyReplyRetries)
	ints("staged_collapses", len(a.StagedCollapses), len(b.StagedCollapses))
	ints("budget_continuations", a.Budget.Continuations, b.Budget.Continuations)
	return out
}

func trackingString(t *AutoCompactTracking) string {
	if t == nil {
		return "none"
	}
	return fmt.Sprintf("{compacted:%t turn_id:%s turn_counter:%d failures:%d replies:%d rapid_refills:%d}",
		t.Compacted, t.TurnID, t.TurnCounter, t.ConsecutiveFailures, t.RepliesSinceCompact, t.RapidRefills)
}

func pendingString(p *PendingSummary) string {
	if p == nil {
		return "none"
	}
	return "batch " + strings.Join(p.batch, ",")
}

func overrideString(n int) string {
	if n > 0 {
		return strconv.Itoa(n)
	}
	return "unset"
}
