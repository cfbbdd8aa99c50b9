package messages

import (
	"encoding/json"
	"fmt"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// signature is the signature of every thinking block the server sends.
const signature = "loopsim-fake-signature"

// wireUsage is the API's usage object.
type wireUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

func usageOf(u loop.Usage) wireUsage {
	return wireUsage{InputTokens: u.InputTokens, CacheCreationInputTokens: u.CacheCreationInputTokens,
		CacheReadInputTokens: u.CacheReadInputTokens, OutputTokens: u.OutputTokens}
}

// wireMessageOut is the API's message object.
type wireMessageOut struct {
	ID           string           `json:"id"`
	Type         string           `json:"type"`
	Role         string           `json:"role"`
	Model        string           `json:"model"`
	Content      []map[string]any `json:"content"`
	StopReason   *string          `json:"stop_reason"`
	StopSequence *string          `json:"stop_sequence"`
	Usage        wireUsage        `json:"usage"`
}

// blockJSON is a whole content block of a non-streaming answer. A
// tool_use whose input is not valid JSON (a truncated reply cuts it) is
// sent with input {}: a JSON message cannot carry it.
func blockJSON(b loop.Block) map[string]any {
	switch b.Type {
	case loop.BlockThinking:
		return map[string]any{"type": "thinking", "thinking": b.Text, "signature": signature}
	case loop.BlockToolUse:
		input := json.RawMessage(b.Input)
		if !json.Valid(input) {
			input = json.RawMessage("{}")
		}
		return map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": input}
	}
	return map[string]any{"type": "text", "text": b.Text}
}

// startJSON is a content block as content_block_start announces it.
func startJSON(b loop.Block) map[string]any {
	switch b.Type {
	case loop.BlockThinking:
		return map[string]any{"type": "thinking", "thinking": "", "signature": ""}
	case loop.BlockToolUse:
		return map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}
	}
	return map[string]any{"type": "text", "text": ""}
}

func messageID(seq int) string { return fmt.Sprintf("msg_loopsim_%06d", seq) }

// Reply is a non-streaming answer: one message object with every block,
// the stop reason and the usage.
func (API) Reply(d *wire.Decoded, a *wire.Answer) any { return message(d, a, true) }

// Stream writes a streamed answer as the API streams it: message_start,
// ping, each block (content_block_start, its deltas, content_block_stop),
// then for a reply message_delta (stop reason, usage) and message_stop,
// for an error the error event. A tool_use cut in its input by the error
// that follows it is left open: no content_block_stop; so is a block the
// failure came inside of (wire.Answer.Cut).
func (API) Stream(s *wire.Stream, d *wire.Decoded, a *wire.Answer) {
	start := message(d, a, false)
	start.Usage.OutputTokens = min(start.Usage.OutputTokens, 1)
	s.Event("message_start", map[string]any{"type": "message_start", "message": start})
	s.Event("ping", map[string]any{"type": "ping"})
	for i, b := range a.Blocks {
		streamBlock(s, i, b, !(a.Outcome == wire.OutcomeError && i == len(a.Blocks)-1 && wire.CutToolUse(b)))
	}
	if a.Cut != nil {
		streamBlock(s, len(a.Blocks), *a.Cut, false)
	}
	switch a.Outcome {
	case wire.OutcomeReply:
		stop := string(a.Response.StopReason)
		s.Event("message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": usageOf(a.Response.Usage)})
		s.Event("message_stop", map[string]any{"type": "message_stop"})
	case wire.OutcomeError:
		s.Event("error", newErrorBody(statusOf(a.Err).Type, a.Err.Message, ""))
	}
}

// message is the answer as the API's message object: whole for a
// non-streaming answer, empty (as message_start carries it) otherwise.
func message(d *wire.Decoded, a *wire.Answer, whole bool) wireMessageOut {
	m := wireMessageOut{ID: messageID(a.Seq), Type: "message", Role: "assistant", Model: d.Request.Model,
		Content: []map[string]any{}, Usage: usageOf(a.Response.Usage)}
	if whole {
		for _, b := range a.Blocks {
			m.Content = append(m.Content, blockJSON(b))
		}
		stop := string(a.Response.StopReason)
		m.StopReason = &stop
	}
	return m
}

// streamBlock streams one content block: start, deltas, and stop unless
// the block is left open (an error event cuts it in the middle).
func streamBlock(s *wire.Stream, i int, b loop.Block, stop bool) {
	s.Event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": startJSON(b)})
	delta := func(d map[string]any) {
		s.Event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
	}
	switch b.Type {
	case loop.BlockThinking:
		for _, c := range wire.Pieces(b.Text) {
			delta(map[string]any{"type": "thinking_delta", "thinking": c})
		}
		delta(map[string]any{"type": "signature_delta", "signature": signature})
	case loop.BlockToolUse:
		for _, c := range wire.Pieces(b.Input) {
			delta(map[string]any{"type": "input_json_delta", "partial_json": c})
		}
	default:
		for _, c := range wire.Pieces(b.Text) {
			delta(map[string]any{"type": "text_delta", "text": c})
		}
	}
	if stop {
		s.Event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
}

// Count is count_tokens' answer: {"input_tokens": N}.
func (API) Count(d *wire.Decoded) any {
	return map[string]int{"input_tokens": d.Request.InputTokens}
}
