package loop

import "encoding/json"

// A stream cut by an error event after content (Policy.StreamErrorRecovery,
// observed of the released agent): the blocks that finished are kept as
// the reply and the request is streamed again.

// streamErrorRecovery continues after a cut stream: the partial reply,
// then a note that it was cut off or, when it holds tool_uses, their
// error results (the tools do not run), so every tool_use keeps its
// result in the next message. With Policy.StreamCutKeepsReply the
// partial reply of text alone is followed by nothing (its tool_uses,
// when it has some, ran through the tool branch instead).
func (r *run) streamErrorRecovery(s *State, mfq []Message, out *streamOutcome) {
	if r.p.StreamCutKeepsReply && len(out.toolUses) == 0 {
		// the partial reply alone, no note (codex)
		r.advance(s, StreamErrorRecovery, append(grow(mfq, 1), out.reply))
		return
	}
	var next Message
	if len(out.toolUses) > 0 {
		next = r.resultMessage(r.syntheticResults(out.toolUses, StreamErrorToolResult), true)
	} else {
		next = r.metaText(StreamErrorNudge)
	}
	r.advance(s, StreamErrorRecovery, append(grow(mfq, 2), out.reply, next))
}

// finishedBlocks drops the block an error event cut open: a last tool_use
// whose input is not a JSON object never finished (on the wire it has no
// content_block_stop), so it was never received.
func finishedBlocks(blocks []Block) []Block {
	if n := len(blocks); n > 0 && blocks[n-1].Type == BlockToolUse && !jsonObject(blocks[n-1].Input) {
		return blocks[:n-1]
	}
	return blocks
}

// jsonObject reports whether s is a JSON object.
func jsonObject(s string) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &obj) == nil && obj != nil
}

// onlyThinking reports whether every block is a thinking block (true
// for none).
func onlyThinking(blocks []Block) bool {
	for _, b := range blocks {
		if b.Type != BlockThinking {
			return false
		}
	}
	return true
}

// keepsContent reports whether a cut reply holds something to keep: a
// block other than thinking.
func keepsContent(blocks []Block) bool {
	return !onlyThinking(blocks)
}
