package gemini_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/fakemodel/wire/gemini"
	"github.com/loopsim/loopsim/loop"
)

// A compaction request is the core's (a request for a <summary>) or
// Gemini CLI's (a request for a <state_snapshot>, or the check of one);
// a snapshot itself, or its scratchpad, is not one.
func TestPurposeOf(t *testing.T) {
	msg := func(role loop.Role, s string) loop.Message {
		return loop.Message{Role: role, Blocks: []loop.Block{{Type: loop.BlockText, Text: s}}}
	}
	history := []loop.Message{msg(loop.RoleUser, "fix the bug"), msg(loop.RoleAssistant, "done")}
	tests := []struct {
		name string
		last loop.Message
		want loop.Purpose
	}{
		{"a main request", msg(loop.RoleUser, "thanks, now add a test"), loop.PurposeMain},
		{"the loop's summarise instruction", msg(loop.RoleUser, loop.SummariseInstruction), loop.PurposeCompact},
		{"Gemini CLI's first compression", msg(loop.RoleUser, "Generate a new <state_snapshot> based on the provided history.\n\n"+
			"First, reason in your scratchpad. Then, generate the updated <state_snapshot>."), loop.PurposeCompact},
		{"Gemini CLI's later compression", msg(loop.RoleUser, "A previous <state_snapshot> exists in the history. You MUST integrate..."), loop.PurposeCompact},
		{"Gemini CLI's check of a snapshot", msg(loop.RoleUser, "Critically evaluate the <state_snapshot> you just generated."), loop.PurposeCompact},
		{"a snapshot sent back", msg(loop.RoleUser, "  <state_snapshot>\n<overall_goal>fix</overall_goal>\n</state_snapshot>"), loop.PurposeMain},
		{"a scratchpad", msg(loop.RoleUser, "<scratchpad>the user wants</scratchpad><state_snapshot>..."), loop.PurposeMain},
		{"a model turn last", msg(loop.RoleAssistant, "Generate a new <state_snapshot>"), loop.PurposeMain},
		{"a tool result that mentions a snapshot", loop.Message{Role: loop.RoleUser, Blocks: []loop.Block{
			{Type: loop.BlockToolResult, ToolUseID: "t", Text: "grep: the <state_snapshot> tag"}}}, loop.PurposeMain},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, gemini.PurposeOf(append(history[:2:2], tt.last)), tt.name)
	}
	assert.Equal(t, loop.PurposeMain, gemini.PurposeOf(nil))
}
