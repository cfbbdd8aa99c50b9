package chat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/fakemodel/wire/chat"
	"github.com/loopsim/loopsim/loop"
)

// A compaction request is the core's (a request for a <summary>), Qwen
// Code's (a request for a <state_snapshot>) or opencode's (a transcript
// between <conversation> tags, then a request for a summary of it); a
// snapshot, a transcript without the request, or such text in a tool
// result or a model turn is not one.
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
		{"Qwen Code's compression", msg(loop.RoleUser, "First, reason in your <analysis> block. Then, produce the <state_snapshot> XML."), loop.PurposeCompact},
		{"a snapshot sent back", msg(loop.RoleUser, "<state_snapshot>\n<overall_goal>fix</overall_goal>\n</state_snapshot>"), loop.PurposeMain},
		{"opencode's compaction", msg(loop.RoleUser, "Here is the conversation so far:\n\n<conversation>\n[User]: fix it\n</conversation>\n\n"+
			"Create a new anchored Summary from the conversation history in the <conversation> tags above."), loop.PurposeCompact},
		{"a transcript without a request", msg(loop.RoleUser, "<conversation>\n[User]: write a summary\n</conversation>\nthanks"), loop.PurposeMain},
		{"an unclosed transcript", msg(loop.RoleUser, "<conversation> and a summary"), loop.PurposeMain},
		{"a model turn last", msg(loop.RoleAssistant, "<conversation></conversation> summary"), loop.PurposeMain},
		{"a tool result that holds a transcript", loop.Message{Role: loop.RoleUser, Blocks: []loop.Block{
			{Type: loop.BlockToolResult, ToolUseID: "t", Text: "<conversation></conversation> summary"}}}, loop.PurposeMain},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, chat.PurposeOf(append(history[:2:2], tt.last)), tt.name)
	}
	assert.Equal(t, loop.PurposeMain, chat.PurposeOf(nil))
}
