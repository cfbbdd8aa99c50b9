package properties

import (
	"fmt"

	"github.com/loopsim/loopsim/loop"
)

// checkPairedTools: every tool_use in the final history has exactly one
// tool_result, and it comes after the tool_use.
func checkPairedTools(r Run) []Violation {
	msgs := r.Result.State.Messages
	type use struct {
		id            string
		msg           int
		after, before int
	}
	var uses []*use
	byID := map[string]*use{}
	for i, m := range msgs {
		for _, b := range m.Blocks {
			if b.Type == loop.BlockToolUse && byID[b.ID] == nil {
				u := &use{id: b.ID, msg: i}
				uses = append(uses, u)
				byID[b.ID] = u
			}
		}
	}
	for i, m := range msgs {
		for _, b := range m.Blocks {
			if u := byID[b.ToolUseID]; b.Type == loop.BlockToolResult && u != nil {
				if i > u.msg {
					u.after++
				} else {
					u.before++
				}
			}
		}
	}
	var out []Violation
	for _, u := range uses {
		if u.after == 1 && u.before == 0 {
			continue
		}
		detail := fmt.Sprintf("tool_use %s in message %s (history index %d) has %d tool_result(s) after it",
			u.id, msgs[u.msg].ID, u.msg, u.after)
		if u.before > 0 {
			detail += fmt.Sprintf(" and %d at or before it", u.before)
		}
		out = append(out, Violation{Invariant: "paired_tools", Event: -1, Detail: detail})
	}
	return out
}
