package loop

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteReadable writes the trace for a person: one line per event,
// indented under the iteration it belongs to.
func WriteReadable(w io.Writer, t Trace) error {
	bw := bufio.NewWriter(w)
	for _, e := range t {
		line := Describe(e)
		if _, ok := e.(IterationStart); !ok {
			line = "  " + line
		}
		bw.WriteString(line)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// Describe renders one event as a short line.
func Describe(e Event) string {
	switch x := e.(type) {
	case IterationStart:
		return fmt.Sprintf("iteration %d (turn %d, %d messages)", x.Iteration, x.Turn, x.Messages)
	case Stage:
		return describeStage(x)
	case Compaction:
		return describeCompaction(x)
	case RequestEvent:
		return describeRequest(x)
	case ResponseEvent:
		return describeResponse(x)
	case RequestFailed:
		return fmt.Sprintf("%-12s %s %d: %s", "failed", x.Kind, x.Status, x.Message)
	case Retry:
		return describeRetry(x)
	case Fallback:
		return fmt.Sprintf("%-12s %s -> %s (%d tool_uses discarded)", "fallback", x.From, x.To, len(x.Orphans))
	case Withheld:
		return fmt.Sprintf("%-12s %s: %s", "withheld", x.Kind, x.Message)
	case ErrorEmitted:
		return fmt.Sprintf("%-12s %s", "error", x.Message)
	case Notice:
		return fmt.Sprintf("%-12s %s", "notice", x.Text)
	case ToolSummary:
		return describeToolSummary(x)
	case ToolBatch:
		return fmt.Sprintf("%-12s %s", "tools", strings.Join(x.ToolUses, " "))
	case ToolResultEvent:
		return describeToolResult(x)
	case StopHook:
		return describeStopHook(x)
	case StopFailureHook:
		return describeStopFailureHook(x)
	case TransitionEvent:
		return describeTransition(x)
	case StateRecord:
		return describeState(x)
	case TerminalEvent:
		return fmt.Sprintf("=> terminal %s (turn %d, %d iterations)", x.Terminal, x.Turn, x.Iterations)
	}
	return fmt.Sprintf("%s %+v", e.EventKind(), e)
}

// describeStage renders a context-management stage: its tokens before
// and after, what it removed, how it failed.
func describeStage(x Stage) string {
	s := fmt.Sprintf("%-12s %s: %d -> %d tokens", "stage", x.Stage, x.TokensBefore, x.TokensAfter)
	if len(x.Removed) > 0 {
		s += fmt.Sprintf(", %d messages removed", len(x.Removed))
	}
	if x.Error != "" {
		s += ", failed: " + x.Error
	}
	return s
}

// describeCompaction renders a compaction: skipped, failed, or what it
// did.
func describeCompaction(x Compaction) string {
	switch {
	case x.Skipped != "":
		return fmt.Sprintf("%-12s %s at %d tokens skipped: %s", "compaction", x.Trigger, x.TokensBefore, x.Skipped)
	case !x.OK:
		return fmt.Sprintf("%-12s %s at %d tokens failed: %s", "compaction", x.Trigger, x.TokensBefore, x.Error)
	}
	return fmt.Sprintf("%-12s %s: %d -> %d tokens, %d messages removed, %d kept", "compaction", x.Trigger, x.TokensBefore, x.TokensAfter, len(x.Removed), x.Kept)
}

// describeRequest renders a request sent.
func describeRequest(x RequestEvent) string {
	s := fmt.Sprintf("%-12s %s #%d to %s: %d messages (last %s), %d tokens in, max_tokens %d", "request", x.Purpose, x.Attempt, x.Model, x.Messages, x.Last, x.InputTokens, x.MaxTokens)
	if x.NonStreaming {
		s += ", non-streaming"
	}
	return s
}

// describeResponse renders a reply received, with its tool_uses.
func describeResponse(x ResponseEvent) string {
	s := fmt.Sprintf("%-12s %s: %d in / %d out tokens", "response", x.StopReason, x.Usage.InputTokens, x.Usage.OutputTokens)
	if len(x.ToolUses) > 0 {
		s += ", tool_use " + strings.Join(x.ToolUses, " ")
	}
	return s
}

// describeRetry renders a retry: as non-streaming, or after a simulated
// delay.
func describeRetry(x Retry) string {
	if x.NonStreaming {
		return fmt.Sprintf("%-12s attempt %d as non-streaming after %s", "retry", x.Attempt, x.Reason)
	}
	return fmt.Sprintf("%-12s attempt %d after %s, simulated delay %d ms", "retry", x.Attempt, x.Reason, x.DelayMS)
}

// describeToolSummary renders a tool-use summary: unsent, failed, or its
// text.
func describeToolSummary(x ToolSummary) string {
	if x.Unsent {
		return fmt.Sprintf("%-12s of %s unsent: the run ended first", "summary", strings.Join(x.Batch, " "))
	}
	s := "summary"
	if len(x.Batch) > 0 {
		s += " of " + strings.Join(x.Batch, " ")
	}
	if x.Error != "" {
		return fmt.Sprintf("%-12s failed: %s", s, x.Error)
	}
	return fmt.Sprintf("%-12s: %s", s, x.Text)
}

// describeToolResult renders a tool result and how it came about.
func describeToolResult(x ToolResultEvent) string {
	s := fmt.Sprintf("%-12s %s (%s): %d tokens", "tool_result", x.ToolUseID, x.Name, x.Tokens)
	if x.Synthetic {
		s += ", synthetic"
	}
	if x.IsError {
		s += ", error"
	}
	if x.InputError {
		s += " (input not valid JSON: not run)"
	}
	if x.Error != "" {
		s += ": " + x.Error
	}
	if x.Prevent {
		s += ", hook prevents continuation"
	}
	return s
}

// describeStopHook renders the stop hooks' outcome with their messages
// or error.
func describeStopHook(x StopHook) string {
	s := fmt.Sprintf("%-12s %s", "stop_hook", x.Outcome)
	if len(x.Messages) > 0 {
		s += ": " + strings.Join(x.Messages, "; ")
	}
	if x.Error != "" {
		s += ": " + x.Error
	}
	return s
}

// describeStopFailureHook renders the error the stop-failure hooks were
// told, and their failure.
func describeStopFailureHook(x StopFailureHook) string {
	s := fmt.Sprintf("%-12s told: %s", "stop_failure", x.Error)
	if !x.Ran {
		s += " (no stop-failure hooks)"
	}
	if x.Failure != "" {
		s += ", failed: " + x.Failure
	}
	return s
}

// describeTransition renders a transition with the state fields it
// changed.
func describeTransition(x TransitionEvent) string {
	parts := make([]string, 0, len(x.Changes))
	for _, c := range x.Changes {
		if c.Field == "transition" {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s->%s", c.Field, c.From, c.To))
	}
	return fmt.Sprintf("=> %s  [%s]", x.Transition, strings.Join(parts, ", "))
}

// describeState renders a state record on one line: the ten fields, the
// ones at their initial value left out but for turn and messages.
func describeState(x StateRecord) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s turn %d", "state", x.TurnCount)
	if x.Transition != "" {
		fmt.Fprintf(&b, ", after %s", x.Transition)
	}
	if x.MaxOutputTokensRecoveryCount > 0 {
		fmt.Fprintf(&b, ", recoveries %d", x.MaxOutputTokensRecoveryCount)
	}
	if x.HasAttemptedReactiveCompact {
		b.WriteString(", reactive compact attempted")
	}
	if x.MaxOutputTokensOverride > 0 {
		fmt.Fprintf(&b, ", max_tokens override %d", x.MaxOutputTokensOverride)
	}
	if x.StopHookActive {
		b.WriteString(", stop hook active")
	}
	if t := x.AutoCompactTracking; t != nil {
		fmt.Fprintf(&b, ", auto-compact {compacted %t, %s, turn %d, failures %d}", t.Compacted, t.TurnID, t.TurnCounter, t.ConsecutiveFailures)
	}
	if p := x.PendingToolUseSummary; p != nil {
		fmt.Fprintf(&b, ", summary pending for %s", strings.Join(p.Batch, " "))
	}
	fmt.Fprintf(&b, "; model %s", x.ToolUseContext.Model)
	if x.ToolUseContext.AgentID != "" {
		fmt.Fprintf(&b, ", agent %s", x.ToolUseContext.AgentID)
	}
	m := x.Messages
	fmt.Fprintf(&b, "; %d messages, %d tokens", m.Count, m.Tokens)
	if len(m.Added) > 0 {
		ids := make([]string, len(m.Added))
		for i, a := range m.Added {
			ids[i] = a.ID
		}
		if len(ids) > 6 {
			ids = append(ids[:3], "...", ids[len(ids)-2], ids[len(ids)-1])
		}
		fmt.Fprintf(&b, " (+%d: %s)", len(m.Added), strings.Join(ids, " "))
	}
	if len(m.Removed) > 0 {
		fmt.Fprintf(&b, " (-%d)", len(m.Removed))
	}
	if len(m.Resized) > 0 {
		fmt.Fprintf(&b, " (%d resized)", len(m.Resized))
	}
	return b.String()
}
