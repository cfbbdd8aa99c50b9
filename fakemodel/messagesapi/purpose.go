package messagesapi

import (
	"strings"

	"github.com/loopsim/loopsim/loop"
)

// SummaryTag is what marks a compaction request (see [PurposeOf]).
const SummaryTag = "<summary>"

// PurposeOf tells a compaction request from a main one by this rule: a
// request is a compaction request when its last message is a user
// message whose text (a text block, or a tool_result's text) holds
// [SummaryTag]. A summarise instruction asks for the summary between
// summary tags: the loop's own ([loop.SummariseInstruction],
// [loop.ReaskInstruction]) and the released agent's do. Every other
// request is a main request.
func PurposeOf(msgs []loop.Message) loop.Purpose {
	if len(msgs) == 0 {
		return loop.PurposeMain
	}
	last := msgs[len(msgs)-1]
	if last.Role != loop.RoleUser {
		return loop.PurposeMain
	}
	for _, b := range last.Blocks {
		if (b.Type == loop.BlockText || b.Type == loop.BlockToolResult) && strings.Contains(b.Text, SummaryTag) {
			return loop.PurposeCompact
		}
	}
	return loop.PurposeMain
}
