package loop

import "fmt"

// MaxTokenCount bounds every size the loop accepts: a message's or a
// block's tokens, a model's context window and output cap, the token
// budget, the usage a response reports, a tool result's or a summary's
// size. At about 10^12 it is far above any real context, and a sum of
// millions of such sizes still fits in an int, so the loop's running
// totals cannot wrap.
const MaxTokenCount = 1 << 40

// MaxRetryAfterMS bounds the retry-after a model error may carry: one day,
// in milliseconds. Simulated back-off sums stay far from overflow.
const MaxRetryAfterMS = 24 * 60 * 60 * 1000

// HistoryError is a starting history the loop refuses: the message at
// Index (from 0; -1 for the history as a whole) breaks Rule.
type HistoryError struct {
	// Index is the message's position in the history, from 0, or -1.
	Index int
	// ID is the message's ID, if it has one.
	ID string
	// Rule says what is wrong.
	Rule string
}

// Error implements error: "message 2 (\"m3\"): <rule>".
func (e *HistoryError) Error() string {
	if e.Index < 0 {
		return e.Rule
	}
	return fmt.Sprintf("message %d (%q): %s", e.Index, e.ID, e.Rule)
}

// ValidateHistory checks a starting history against the rules the model
// API holds a conversation to, and returns the first message that breaks
// one as a [*HistoryError]:
//
//   - the history has at least one message, and the first is the user's;
//   - every message is the user's or the assistant's and has at least one
//     content block, each block of a known type and well formed;
//   - sizes (message, block, usage) are between 0 and [MaxTokenCount];
//   - message IDs that are set are unique;
//   - only assistant messages carry tool_use blocks and only user
//     messages carry tool_result blocks;
//   - tool_use ids are unique, every tool_result answers a tool_use of
//     an earlier message, and every tool_use is answered exactly once.
//
// [Run] refuses a history that breaks a rule, so the loop is never
// blamed in an invariant for a conversation it was handed.
func ValidateHistory(msgs []Message) error {
	if len(msgs) == 0 {
		return &HistoryError{Index: -1, Rule: "the history is empty: a run starts from at least one user message"}
	}
	ids := make(map[string]int, len(msgs))
	// answered: tool_use id -> whether a tool_result answered it;
	// usedIn: the message index that holds it.
	answered := map[string]bool{}
	usedIn := map[string]int{}
	var order []string
	for i, m := range msgs {
		bad := func(format string, args ...any) error {
			return &HistoryError{Index: i, ID: m.ID, Rule: fmt.Sprintf(format, args...)}
		}
		if m.Role != RoleUser && m.Role != RoleAssistant {
			return bad("role %q is neither %q nor %q", m.Role, RoleUser, RoleAssistant)
		}
		if i == 0 && m.Role != RoleUser {
			return bad("the first message must be the user's, not the %s's", m.Role)
		}
		if m.ID != "" {
			if first, dup := ids[m.ID]; dup {
				return bad("id %q is also the id of message %d", m.ID, first)
			}
			ids[m.ID] = i
		}
		if err := checkSize("tokens", m.Tokens); err != nil {
			return bad("%v", err)
		}
		if m.Usage != nil {
			if err := checkUsage(*m.Usage); err != nil {
				return bad("usage: %v", err)
			}
		}
		if len(m.Blocks) == 0 {
			return bad("a message needs at least one content block")
		}
		for j, b := range m.Blocks {
			if err := validateBlock(&b); err != nil {
				return bad("block %d: %v", j, err)
			}
			switch b.Type {
			case BlockToolUse:
				if m.Role != RoleAssistant {
					return bad("block %d: a tool_use belongs in an assistant message", j)
				}
				if first, dup := usedIn[b.ID]; dup {
					return bad("block %d: tool_use id %q is also used in message %d", j, b.ID, first)
				}
				usedIn[b.ID] = i
				answered[b.ID] = false
				order = append(order, b.ID)
			case BlockToolResult:
				if m.Role != RoleUser {
					return bad("block %d: a tool_result belongs in a user message", j)
				}
				done, ok := answered[b.ToolUseID]
				switch {
				case !ok || usedIn[b.ToolUseID] >= i:
					return bad("block %d: tool_result answers %q, which is no tool_use of an earlier message", j, b.ToolUseID)
				case done:
					return bad("block %d: tool_use %q already has a tool_result", j, b.ToolUseID)
				}
				answered[b.ToolUseID] = true
			}
		}
	}
	for _, id := range order {
		if !answered[id] {
			i := usedIn[id]
			return &HistoryError{Index: i, ID: msgs[i].ID, Rule: fmt.Sprintf("tool_use %q has no tool_result in a later message", id)}
		}
	}
	return nil
}

// checkSize refuses a size outside 0..MaxTokenCount.
func checkSize(what string, n int) error {
	switch {
	case n < 0:
		return fmt.Errorf("%s %d is negative", what, n)
	case n > MaxTokenCount:
		return fmt.Errorf("%s %d is above %d (MaxTokenCount)", what, n, MaxTokenCount)
	}
	return nil
}

// checkUsage refuses usage with a count outside 0..MaxTokenCount.
func checkUsage(u Usage) error {
	if min(u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens) >= 0 &&
		max(u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens) <= MaxTokenCount {
		// every reply's usage: no list of the counts to walk
		return nil
	}
	for _, c := range []struct {
		what string
		n    int
	}{{"input_tokens", u.InputTokens}, {"output_tokens", u.OutputTokens},
		{"cache_read_input_tokens", u.CacheReadInputTokens}, {"cache_creation_input_tokens", u.CacheCreationInputTokens}} {
		if err := checkSize(c.what, c.n); err != nil {
			return err
		}
	}
	return nil
}
