package gemini

import (
	"encoding/json"

	"google.golang.org/genai"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/internal/adapter"
)

// accumulator builds a response from the responses (or stream chunks)
// of one call. A function call is a block at once (the API sends it
// whole); a run of text parts, or of thought parts, is one block,
// handed out when a part of another kind follows or the answer ends.
// It is an [adapter.Reader].
type accumulator struct {
	m       *Model
	pending *loop.Block
	sig     []byte // the pending thought's signature
	calls   int
	finish  genai.FinishReason
	usage   *genai.GenerateContentResponseUsageMetadata
}

// Read implements [adapter.Reader]: one chunk, the blocks it completed
// handed out.
func (a *accumulator) Read(r *genai.GenerateContentResponse, yield func(loop.Block)) (bool, error) {
	a.add(r, yield)
	return false, nil
}

// Ended implements [adapter.Reader]: a finish reason arrived.
func (a *accumulator) Ended() bool { return a.finish != "" }

// Stop implements [adapter.Reader]: at the answer's end, or when it
// failed, the pending run of text is as finished as it will be; at the
// user's abort, or a stream that ends without a finish reason, it is
// not received.
func (a *accumulator) Stop(why adapter.Stop, yield func(loop.Block)) {
	if why == adapter.Finished || why == adapter.Failed {
		a.flush(yield)
	}
}

// add takes one response and hands out the blocks it completed.
func (a *accumulator) add(r *genai.GenerateContentResponse, yield func(loop.Block)) {
	if r == nil {
		return
	}
	if r.UsageMetadata != nil {
		a.usage = r.UsageMetadata
	}
	if len(r.Candidates) == 0 || r.Candidates[0] == nil {
		if r.PromptFeedback != nil && a.finish == "" {
			// the prompt was blocked: an answer with no candidate
			a.finish = genai.FinishReasonOther
		}
		return
	}
	c := r.Candidates[0]
	if c.FinishReason != "" && c.FinishReason != genai.FinishReasonUnspecified {
		a.finish = c.FinishReason
	}
	if c.Content == nil {
		return
	}
	for _, p := range c.Content.Parts {
		if p == nil {
			continue
		}
		switch {
		case p.FunctionCall != nil:
			a.flush(yield)
			id := a.m.callID(p.FunctionCall.ID)
			a.m.remember("call:"+id, p.ThoughtSignature)
			input := "{}"
			if p.FunctionCall.Args != nil {
				if raw, err := json.Marshal(p.FunctionCall.Args); err == nil {
					input = string(raw)
				}
			}
			a.calls++
			yield(loop.Block{Type: loop.BlockToolUse, ID: id, Name: p.FunctionCall.Name, Input: input})
		case p.Thought:
			a.text(loop.BlockThinking, p, yield)
		case p.Text != "":
			a.text(loop.BlockText, p, yield)
		}
	}
}

// text adds a text or thought part to the pending run of its kind.
func (a *accumulator) text(typ loop.BlockType, p *genai.Part, yield func(loop.Block)) {
	if a.pending != nil && a.pending.Type != typ {
		a.flush(yield)
	}
	if a.pending == nil {
		a.pending = &loop.Block{Type: typ}
	}
	a.pending.Text += p.Text
	if typ == loop.BlockThinking && len(p.ThoughtSignature) > 0 {
		a.sig = p.ThoughtSignature
	}
}

// flush hands out the pending run of text or thought, if any.
func (a *accumulator) flush(yield func(loop.Block)) {
	if a.pending == nil {
		return
	}
	b := *a.pending
	if b.Type == loop.BlockThinking {
		a.m.remember("thought:"+b.Text, a.sig)
	}
	a.pending, a.sig = nil, nil
	yield(b)
}

// Response implements [adapter.Reader]: how the answer ended: STOP is a tool_use stop when a
// function call came, else end_turn; MAX_TOKENS is max_tokens; a
// malformed or unexpected function call is a tool_use stop with no
// tool_use (the loop's malformed reply); any other reason (safety,
// recitation, a blocked prompt) is end_turn. The usage counts the
// prompt without its cached tokens as input, the cached ones as cache
// reads, and the candidates with the thoughts as output.
func (a *accumulator) Response() loop.Response {
	stop := loop.StopEndTurn
	switch a.finish {
	case genai.FinishReasonStop:
		if a.calls > 0 {
			stop = loop.StopToolUse
		}
	case genai.FinishReasonMaxTokens:
		stop = loop.StopMaxTokens
	case genai.FinishReasonMalformedFunctionCall, genai.FinishReasonUnexpectedToolCall:
		stop = loop.StopToolUse
	}
	var u loop.Usage
	if a.usage != nil {
		cached := int(a.usage.CachedContentTokenCount)
		u = loop.Usage{InputTokens: int(a.usage.PromptTokenCount) - cached, CacheReadInputTokens: cached,
			OutputTokens: int(a.usage.CandidatesTokenCount) + int(a.usage.ThoughtsTokenCount)}
	}
	return loop.Response{StopReason: stop, Usage: u}
}
