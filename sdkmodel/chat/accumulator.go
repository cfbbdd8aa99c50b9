package chat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/internal/adapter"
)

// accumulator builds a response from the chunks of one stream. A chunk
// stream marks no block's end: a run of content (or of
// reasoning_content) is one block, handed out when a delta of another
// kind begins or the answer ends; a tool call is one block, handed out
// as soon as its arguments are a whole JSON object (nothing can follow
// one), else when the next tool call or other content begins, or the
// answer ends. It is an [adapter.Reader]; make one with newAccumulator.
type accumulator struct {
	pending *loop.Block
	call    int // the pending tool call's index, when pending is one
	done    int // the index of the last tool call handed out whole, -1 before
	finish  string
	usage   openai.CompletionUsage
	calls   int
}

func newAccumulator() *accumulator { return &accumulator{done: -1} }

// Read implements [adapter.Reader]: one chunk, the blocks it completed
// handed out.
func (a *accumulator) Read(c openai.ChatCompletionChunk, yield func(loop.Block)) (bool, error) {
	return false, a.add(c, yield)
}

// Ended implements [adapter.Reader]: a finish_reason arrived.
func (a *accumulator) Ended() bool { return a.finish != "" }

// Stop implements [adapter.Reader]. At the user's abort, or at the
// answer's end, what arrived is received, a tool call in progress too
// (at an abort the loop answers it as one the abort cut); at a failure,
// or a stream that ends without a finish_reason, all but a tool call
// cut inside its arguments.
func (a *accumulator) Stop(why adapter.Stop, yield func(loop.Block)) {
	if why == adapter.Finished || why == adapter.Aborted {
		a.flush(yield)
		return
	}
	a.flushWhole(yield)
}

// add takes one chunk and hands out the blocks it completed.
func (a *accumulator) add(c openai.ChatCompletionChunk, yield func(loop.Block)) error {
	if c.JSON.Usage.Valid() && c.Usage.JSON.PromptTokens.Valid() {
		a.usage = c.Usage
	}
	if len(c.Choices) == 0 {
		return nil
	}
	ch := c.Choices[0]
	d := ch.Delta
	if r, ok := reasoning(d.JSON.ExtraFields); ok && r != "" {
		a.text(loop.BlockThinking, r, yield)
	}
	if d.Content != "" {
		a.text(loop.BlockText, d.Content, yield)
	}
	for _, tc := range d.ToolCalls {
		if int(tc.Index) == a.done {
			// the call was handed out whole: only white space may follow
			if strings.TrimSpace(tc.Function.Arguments) != "" {
				return fmt.Errorf("tool call %d's arguments go on after a whole JSON object", tc.Index)
			}
			continue
		}
		if a.pending == nil || a.pending.Type != loop.BlockToolUse || int(tc.Index) != a.call {
			if tc.ID == "" || tc.Function.Name == "" {
				return fmt.Errorf("tool call %d begins without its id and name", tc.Index)
			}
			a.flush(yield)
			a.pending, a.call = &loop.Block{Type: loop.BlockToolUse, ID: tc.ID, Name: tc.Function.Name}, int(tc.Index)
			a.calls++
		}
		a.pending.Input += tc.Function.Arguments
		if jsonObject(a.pending.Input) {
			// a JSON object is whole: no piece can follow it
			a.done = a.call
			a.flush(yield)
		}
	}
	if ch.FinishReason != "" {
		a.finish = ch.FinishReason
	}
	return nil
}

// text adds a piece of content or reasoning to the pending run of its
// kind.
func (a *accumulator) text(typ loop.BlockType, s string, yield func(loop.Block)) {
	if a.pending != nil && a.pending.Type != typ {
		a.flush(yield)
	}
	if a.pending == nil {
		a.pending = &loop.Block{Type: typ}
	}
	a.pending.Text += s
}

// flush hands out the pending block, if any.
func (a *accumulator) flush(yield func(loop.Block)) {
	if a.pending == nil {
		return
	}
	b := *a.pending
	a.pending = nil
	yield(noArguments(b))
}

// noArguments gives a tool call that came without arguments (some
// servers send none for a tool with no parameters) the empty object.
func noArguments(b loop.Block) loop.Block {
	if b.Type == loop.BlockToolUse && strings.TrimSpace(b.Input) == "" {
		b.Input = "{}"
	}
	return b
}

// flushWhole hands out the pending block unless it is a tool call whose
// arguments are not a JSON object: the failure cut it.
func (a *accumulator) flushWhole(yield func(loop.Block)) {
	if a.pending != nil && a.pending.Type == loop.BlockToolUse && !jsonObject(a.pending.Input) {
		a.pending = nil
		return
	}
	a.flush(yield)
}

// Response implements [adapter.Reader]: how the answer ended.
func (a *accumulator) Response() loop.Response {
	return loop.Response{StopReason: stopReason(a.finish), Usage: usageOf(a.usage)}
}

// messageBlocks are a whole message's blocks: its reasoning_content (an
// extension some servers send, loopsim's among them), its content, its
// tool calls.
func messageBlocks(msg openai.ChatCompletionMessage) []loop.Block {
	var out []loop.Block
	if r, ok := reasoning(msg.JSON.ExtraFields); ok {
		out = append(out, loop.Block{Type: loop.BlockThinking, Text: r})
	}
	if msg.Content != "" {
		out = append(out, loop.Block{Type: loop.BlockText, Text: msg.Content})
	}
	for _, tc := range msg.ToolCalls {
		input := tc.Function.Arguments
		if tc.Type == "custom" {
			input = tc.Custom.Input
		}
		name := tc.Function.Name
		if name == "" {
			name = tc.Custom.Name
		}
		out = append(out, noArguments(loop.Block{Type: loop.BlockToolUse, ID: tc.ID, Name: name, Input: input}))
	}
	return out
}

// stopReason is a finish_reason as the loop's stop reason: length is
// max_tokens, tool_calls (and the deprecated function_call) tool_use,
// anything else (stop, content_filter) end_turn.
func stopReason(finish string) loop.StopReason {
	switch finish {
	case "length":
		return loop.StopMaxTokens
	case "tool_calls", "function_call":
		return loop.StopToolUse
	}
	return loop.StopEndTurn
}

// usageOf is the API's usage in the loop's terms: prompt_tokens counts
// every input token, so the input is what it counts beyond the cache's
// reads (cached_tokens) and writes (cache_write_tokens).
func usageOf(u openai.CompletionUsage) loop.Usage {
	read := int(u.PromptTokensDetails.CachedTokens)
	write := int(u.PromptTokensDetails.CacheWriteTokens)
	return loop.Usage{InputTokens: max(int(u.PromptTokens)-read-write, 0), CacheReadInputTokens: read,
		CacheCreationInputTokens: write, OutputTokens: int(u.CompletionTokens)}
}

// extraField is how the SDK keeps a field it has no name for.
type extraField interface{ Raw() string }

// reasoning reads reasoning_content from a message's or delta's extra
// fields.
func reasoning[F extraField](extra map[string]F) (string, bool) {
	f, ok := extra["reasoning_content"]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal([]byte(f.Raw()), &s) != nil {
		return "", false
	}
	return s, true
}

// jsonObject reports whether s is a JSON object.
func jsonObject(s string) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &obj) == nil && obj != nil
}
