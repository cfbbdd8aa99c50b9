package chat

import (
	"strings"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// ConversationTag is what marks opencode's compaction request (see
// [PurposeOf]).
const ConversationTag = "<conversation>"

// PurposeOf is the core's rule ([wire.PurposeOf]: a last user message
// asking for a summary in <summary> tags) extended for the agents that
// speak Chat Completions and ask for a compaction their own way: a
// request is also a compaction request when its last message is a user
// message with a text block that asks for a <state_snapshot>
// ([wire.AsksForSnapshot]: Qwen Code, a fork of Gemini CLI, asks as Gemini
// CLI does), or that hands over a transcript between <conversation> tags
// and asks, after it, for a summary of it (opencode, which sends its
// compaction as one user message: the conversation so far as text, then
// the request for a summary of it).
func PurposeOf(msgs []loop.Message) loop.Purpose {
	return wire.PurposeAlso(msgs, func(text string) bool {
		return wire.AsksForSnapshot(text) || asksForTranscriptSummary(text)
	})
}

// asksForTranscriptSummary: the text holds a transcript between
// <conversation> tags and, after its closing tag, asks for a summary.
func asksForTranscriptSummary(text string) bool {
	open := strings.Index(text, ConversationTag)
	if open < 0 {
		return false
	}
	end := strings.Index(text[open:], "</conversation>")
	return end >= 0 && strings.Contains(strings.ToLower(text[open+end:]), "summary")
}
