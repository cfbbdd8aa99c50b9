package loop

import (
	"fmt"
	"strconv"
)

// after returns s as the continue t leaves it: the SPEC §3 table, plus the
// counters of the policy's extra guards. Fields a transition sets to a
// value it computed (the escalated cap, the messages) are set by the
// caller afterwards.
func (s State) after(t Transition) State {
	n := s
	n.Transition = t
	n.MaxOutputTokensOverride = 0
	if t != StopHookBlocking && t != NextTurn {
		n.StopHookActive = false
	}
	switch t {
	case NextTurn:
		n.MaxOutputTokensRecoveryCount = 0
		n.HasAttemptedReactiveCompact = false
		n.ReactiveCompactsInRow = 0
		n.TurnCount++
		n.StopHookBlocksInRow = 0
		n.EscalatedThisStretch = false
		n.MalformedToolUseRetries = 0
		n.EmptyReplyRetries = 0
	case CollapseDrainRetry:
	case ReactiveCompactRetry:
		n.HasAttemptedReactiveCompact = true
		n.ReactiveCompactsInRow++
		n.AutoCompactTracking = nil
	case MaxOutputTokensEscalate:
		n.EscalatedThisStretch = true
	case MaxOutputTokensRecovery:
		n.MaxOutputTokensRecoveryCount++
	case StopHookBlocking:
		n.MaxOutputTokensRecoveryCount = 0
		n.StopHookActive = true
		n.StopHookBlocksInRow++
	case TokenBudgetContinuation:
		n.MaxOutputTokensRecoveryCount = 0
		n.HasAttemptedReactiveCompact = false
		n.ReactiveCompactsInRow = 0
	case MalformedToolUseRetry:
		n.MalformedToolUseRetries++
	case EmptyReplyRetry:
		n.EmptyReplyRetries++
	}
	return n
}

// fieldValues lists the state fields a transition can change, by the
// names the trace uses, in a fixed order.
func fieldValues(s State) [][2]string {
	tracking := "none"
	if t := s.AutoCompactTracking; t != nil {
		tracking = fmt.Sprintf("{compacted:%t turn_id:%s turn_counter:%d failures:%d replies:%d rapid_refills:%d}",
			t.Compacted, t.TurnID, t.TurnCounter, t.ConsecutiveFailures, t.RepliesSinceCompact, t.RapidRefills)
	}
	override := "unset"
	if s.MaxOutputTokensOverride > 0 {
		override = strconv.Itoa(s.MaxOutputTokensOverride)
	}
	return [][2]string{
		{"messages", strconv.Itoa(len(s.Messages))},
		{"model", s.ToolUseContext.Model},
		{"auto_compact_tracking", tracking},
		{"max_output_tokens_recovery_count", strconv.Itoa(s.MaxOutputTokensRecoveryCount)},
		{"has_attempted_reactive_compact", strconv.FormatBool(s.HasAttemptedReactiveCompact)},
		{"max_output_tokens_override", override},
		{"stop_hook_active", strconv.FormatBool(s.StopHookActive)},
		{"turn_count", strconv.Itoa(s.TurnCount)},
		{"transition", string(s.Transition)},
		{"reactive_compacts_in_row", strconv.Itoa(s.ReactiveCompactsInRow)},
		{"stop_hook_blocks_in_row", strconv.Itoa(s.StopHookBlocksInRow)},
		{"escalated_this_stretch", strconv.FormatBool(s.EscalatedThisStretch)},
		{"malformed_tool_use_retries", strconv.Itoa(s.MalformedToolUseRetries)},
		{"empty_reply_retries", strconv.Itoa(s.EmptyReplyRetries)},
		{"staged_collapses", strconv.Itoa(len(s.StagedCollapses))},
		{"budget_continuations", strconv.Itoa(s.Budget.Continuations)},
	}
}

// diffState lists the fields that differ between a and b.
func diffState(a, b State) []FieldChange {
	av, bv := fieldValues(a), fieldValues(b)
	var out []FieldChange
	for i := range av {
		if av[i][1] != bv[i][1] {
			out = append(out, FieldChange{Field: av[i][0], From: av[i][1], To: bv[i][1]})
		}
	}
	return out
}
