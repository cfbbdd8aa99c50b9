package sdkmodel

import (
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/internal/adapter"
)

// received is a finished content block and, for a thinking block, the
// signature that came with it.
type received struct {
	block     loop.Block
	signature string
}

// open is a content block being streamed.
type open struct {
	typ       string
	text      string
	thinking  string
	signature string
	id, name  string
	input     []byte
	streamed  bool // an input_json_delta arrived: input holds only the deltas
	done      bool
}

// accumulator builds a response from stream events (an
// [adapter.Reader]). It hands blocks out in index order, each once its
// content_block_stop has arrived and every block before it has been
// handed out.
type accumulator struct {
	m       *Model // keeps the thinking blocks' signatures
	blocks  []open
	next    int // index of the next block to hand out
	usage   loop.Usage
	stop    string
	stopped bool // message_stop arrived
}

// Read implements [adapter.Reader]: one event, the blocks it finished
// handed to yield in order.
func (a *accumulator) Read(ev anthropic.MessageStreamEventUnion, yield func(loop.Block)) (bool, error) {
	blocks, err := a.add(ev)
	for _, b := range blocks {
		a.m.remember(b)
		yield(b.block)
	}
	return false, err
}

// Ended implements [adapter.Reader]: message_stop arrived.
func (a *accumulator) Ended() bool { return a.stopped }

// Stop implements [adapter.Reader]: a block cut before its
// content_block_stop never reaches the loop.
func (a *accumulator) Stop(adapter.Stop, func(loop.Block)) {}

// add takes one event and returns the blocks it finished, in order.
func (a *accumulator) add(ev anthropic.MessageStreamEventUnion) ([]received, error) {
	switch ev.Type {
	case "message_start":
		a.usage = usageOf(ev.Message.Usage)
	case "content_block_start":
		if int(ev.Index) != len(a.blocks) {
			return nil, fmt.Errorf("content_block_start for index %d, expected %d", ev.Index, len(a.blocks))
		}
		cb := ev.ContentBlock
		b := open{typ: cb.Type, text: cb.Text, thinking: cb.Thinking, signature: cb.Signature, id: cb.ID, name: cb.Name}
		if cb.Type == "tool_use" {
			var raw struct {
				Input json.RawMessage `json:"input"`
			}
			if err := json.Unmarshal([]byte(cb.RawJSON()), &raw); err != nil {
				return nil, fmt.Errorf("tool_use block %d: %w", ev.Index, err)
			}
			b.input = raw.Input
		}
		a.blocks = append(a.blocks, b)
	case "content_block_delta":
		b, err := a.block(ev)
		if err != nil {
			return nil, err
		}
		d := ev.Delta
		switch d.Type {
		case "text_delta":
			b.text += d.Text
		case "thinking_delta":
			b.thinking += d.Thinking
		case "signature_delta":
			b.signature += d.Signature
		case "input_json_delta":
			if !b.streamed {
				b.streamed, b.input = true, nil
			}
			b.input = append(b.input, d.PartialJSON...)
		}
	case "content_block_stop":
		b, err := a.block(ev)
		if err != nil {
			return nil, err
		}
		b.done = true
		return a.finished(), nil
	case "message_delta":
		a.stop = string(ev.Delta.StopReason)
		u := ev.Usage
		a.usage.OutputTokens = int(u.OutputTokens)
		if u.JSON.InputTokens.Valid() {
			a.usage.InputTokens = int(u.InputTokens)
		}
		if u.JSON.CacheReadInputTokens.Valid() {
			a.usage.CacheReadInputTokens = int(u.CacheReadInputTokens)
		}
		if u.JSON.CacheCreationInputTokens.Valid() {
			a.usage.CacheCreationInputTokens = int(u.CacheCreationInputTokens)
		}
	case "message_stop":
		a.stopped = true
	}
	return nil, nil
}

// block returns the open block an event addresses.
func (a *accumulator) block(ev anthropic.MessageStreamEventUnion) (*open, error) {
	if ev.Index < 0 || int(ev.Index) >= len(a.blocks) {
		return nil, fmt.Errorf("%s for index %d, but %d blocks have started", ev.Type, ev.Index, len(a.blocks))
	}
	return &a.blocks[ev.Index], nil
}

// finished hands out the blocks that are done, in index order.
func (a *accumulator) finished() []received {
	var out []received
	for a.next < len(a.blocks) && a.blocks[a.next].done {
		if r, ok := a.blocks[a.next].received(); ok {
			out = append(out, r)
		}
		a.next++
	}
	return out
}

// Response implements [adapter.Reader]: how the stream ended.
func (a *accumulator) Response() loop.Response {
	return loop.Response{StopReason: loop.StopReason(a.stop), Usage: a.usage}
}

// received converts a finished block; ok is false for a block type the
// loop does not carry (redacted thinking, server tools).
func (b *open) received() (received, bool) {
	switch b.typ {
	case "text":
		return received{block: loop.Block{Type: loop.BlockText, Text: b.text}}, true
	case "thinking":
		return received{block: loop.Block{Type: loop.BlockThinking, Text: b.thinking}, signature: b.signature}, true
	case "tool_use":
		input := string(b.input)
		if !b.streamed && (input == "" || input == "null") {
			input = "{}"
		}
		return received{block: loop.Block{Type: loop.BlockToolUse, ID: b.id, Name: b.name, Input: input}}, true
	}
	return received{}, false
}

// fromContent converts a block of a non-streaming response; ok is false for
// a block type the loop does not carry.
func fromContent(c anthropic.ContentBlockUnion) (received, bool, error) {
	switch c.Type {
	case "text":
		return received{block: loop.Block{Type: loop.BlockText, Text: c.Text}}, true, nil
	case "thinking":
		return received{block: loop.Block{Type: loop.BlockThinking, Text: c.Thinking}, signature: c.Signature}, true, nil
	case "tool_use":
		if c.ID == "" || c.Name == "" {
			return received{}, false, fmt.Errorf("tool_use without id or name")
		}
		input := string(c.Input)
		if input == "" || input == "null" {
			input = "{}"
		}
		return received{block: loop.Block{Type: loop.BlockToolUse, ID: c.ID, Name: c.Name, Input: input}}, true, nil
	}
	return received{}, false, nil
}
