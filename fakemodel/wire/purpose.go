package wire

import (
	"strings"

	"github.com/loopsim/loopsim/loop"
)

// SummaryTag is what marks a compaction request (see [PurposeOf]).
const SummaryTag = "<summary>"

// SnapshotTag is what marks the compression request of Gemini CLI and of
// Qwen Code, its fork (see [AsksForSnapshot]).
const SnapshotTag = "<state_snapshot>"

// PurposeOf tells a compaction request from a main one by this rule: a
// request is a compaction request when its last message is a user
// message with a text block (or a tool_result's text) that asks for a
// summary in tags: it holds [SummaryTag] but does not begin with it or
// with <analysis> (after white space), which is how a summary, as
// opposed to the request for one, reads. A summarise instruction asks
// for the summary between summary tags: the loop's own
// ([loop.SummariseInstruction], [loop.ReaskInstruction]) and the
// released agent's do; the summary a compaction left, when it is the
// last message of the next request, begins with its tags (the loop's) or
// carries none (the released agent rewrites them). Every other request
// is a main request.
func PurposeOf(msgs []loop.Message) loop.Purpose {
	if lastUserBlock(msgs, func(b loop.Block) bool {
		return (b.Type == loop.BlockText || b.Type == loop.BlockToolResult) && asksForSummary(b.Text)
	}) {
		return loop.PurposeCompact
	}
	return loop.PurposeMain
}

// PurposeAlso is [PurposeOf] with one more way a client asks for a
// compaction: a request is also a compaction request when its last
// message is a user message with a text block for which asks is true.
// An API's own purpose rule is this with its clients' marker.
func PurposeAlso(msgs []loop.Message, asks func(text string) bool) loop.Purpose {
	if PurposeOf(msgs) == loop.PurposeCompact ||
		lastUserBlock(msgs, func(b loop.Block) bool { return b.Type == loop.BlockText && asks(b.Text) }) {
		return loop.PurposeCompact
	}
	return loop.PurposeMain
}

// lastUserBlock reports whether the last message is a user message with
// a block for which match is true.
func lastUserBlock(msgs []loop.Message, match func(loop.Block) bool) bool {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != loop.RoleUser {
		return false
	}
	for _, b := range msgs[len(msgs)-1].Blocks {
		if match(b) {
			return true
		}
	}
	return false
}

func asksForSummary(text string) bool {
	t := strings.TrimSpace(text)
	return strings.Contains(t, SummaryTag) && !strings.HasPrefix(t, SummaryTag) && !strings.HasPrefix(t, "<analysis>")
}

// AsksForSnapshot is how Gemini CLI and Qwen Code ask for a compaction:
// they compress the history by asking, in the last user message, for a
// new or improved <state_snapshot>, and send the snapshot back later as a
// user message that begins with it. So a text that holds [SnapshotTag]
// but does not begin with it or with <scratchpad> (after white space)
// asks for one: the request for a snapshot, and the check of one just
// made, as opposed to a snapshot.
func AsksForSnapshot(text string) bool {
	t := strings.TrimSpace(text)
	return strings.Contains(t, SnapshotTag) && !strings.HasPrefix(t, SnapshotTag) && !strings.HasPrefix(t, "<scratchpad>")
}
