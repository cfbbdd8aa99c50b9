package chat

import (
	"fmt"
	"strings"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// Created is the "created" time of every answer, 2026-01-01 00:00 UTC:
// a fixed time, so that answers are the same from run to run.
const Created = 1767225600

// Fingerprint is the system_fingerprint of every answer.
const Fingerprint = "fp_loopsim"

// completionID is the id of request seq's completion.
func completionID(seq int) string { return fmt.Sprintf("chatcmpl-loopsim%06d", seq) }

// FinishReason is a loop stop reason as the API's finish_reason: stop
// for end_turn (and anything else), length for max_tokens, tool_calls
// for tool_use.
func FinishReason(r loop.StopReason) string {
	switch r {
	case loop.StopMaxTokens:
		return "length"
	case loop.StopToolUse:
		return "tool_calls"
	}
	return "stop"
}

// usage is the API's usage object. prompt_tokens counts every input
// token, cached or not; cached_tokens the ones read from the prompt
// cache, cache_write_tokens the ones written to it.
type usage struct {
	PromptTokens            int                     `json:"prompt_tokens"`
	CompletionTokens        int                     `json:"completion_tokens"`
	TotalTokens             int                     `json:"total_tokens"`
	PromptTokensDetails     promptTokensDetails     `json:"prompt_tokens_details"`
	CompletionTokensDetails completionTokensDetails `json:"completion_tokens_details"`
}

type promptTokensDetails struct {
	CachedTokens     int `json:"cached_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	AudioTokens      int `json:"audio_tokens"`
}

type completionTokensDetails struct {
	ReasoningTokens          int `json:"reasoning_tokens"`
	AudioTokens              int `json:"audio_tokens"`
	AcceptedPredictionTokens int `json:"accepted_prediction_tokens"`
	RejectedPredictionTokens int `json:"rejected_prediction_tokens"`
}

func usageOf(u loop.Usage) *usage {
	prompt := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
	return &usage{PromptTokens: prompt, CompletionTokens: u.OutputTokens, TotalTokens: prompt + u.OutputTokens,
		PromptTokensDetails: promptTokensDetails{CachedTokens: u.CacheReadInputTokens, CacheWriteTokens: u.CacheCreationInputTokens}}
}

// completion is the API's chat.completion object.
type completion struct {
	ID                string   `json:"id"`
	Object            string   `json:"object"`
	Created           int      `json:"created"`
	Model             string   `json:"model"`
	Choices           []choice `json:"choices"`
	Usage             *usage   `json:"usage"`
	ServiceTier       string   `json:"service_tier"`
	SystemFingerprint string   `json:"system_fingerprint"`
}

type choice struct {
	Index        int        `json:"index"`
	Message      messageOut `json:"message"`
	Logprobs     *struct{}  `json:"logprobs"`
	FinishReason string     `json:"finish_reason"`
}

// messageOut is the assistant message of an answer: content null when
// the model wrote no text; reasoning_content (an extension, see the
// package documentation) only when it thought.
type messageOut struct {
	Role             string     `json:"role"`
	Content          *string    `json:"content"`
	ReasoningContent *string    `json:"reasoning_content,omitempty"`
	Refusal          *string    `json:"refusal"`
	ToolCalls        []toolCall `json:"tool_calls,omitempty"`
	Annotations      []struct{} `json:"annotations"`
}

// toolCall is a tool call of an answer, or a piece of one in a chunk.
type toolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function toolCallFunc `json:"function"`
}

type toolCallFunc struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// Reply implements [wire.API]: the answer as one chat.completion. The
// text blocks are the message's content, the thinking blocks its
// reasoning_content, each tool_use a tool call whose arguments are the
// input as the model wrote it (a truncated reply's cut JSON included).
func (API) Reply(d *wire.Decoded, a *wire.Answer) any {
	var text, thinking strings.Builder
	hasText, hasThinking := false, false
	msg := messageOut{Role: "assistant", Annotations: []struct{}{}}
	for _, b := range a.Blocks {
		switch b.Type {
		case loop.BlockThinking:
			thinking.WriteString(b.Text)
			hasThinking = true
		case loop.BlockToolUse:
			msg.ToolCalls = append(msg.ToolCalls, toolCall{ID: b.ID, Type: "function",
				Function: toolCallFunc{Name: b.Name, Arguments: b.Input}})
		default:
			text.WriteString(b.Text)
			hasText = true
		}
	}
	if hasText {
		s := text.String()
		msg.Content = &s
	}
	if hasThinking {
		s := thinking.String()
		msg.ReasoningContent = &s
	}
	return completion{ID: completionID(a.Seq), Object: "chat.completion", Created: Created, Model: d.Request.Model,
		Choices: []choice{{Message: msg, FinishReason: FinishReason(a.Response.StopReason)}},
		Usage:   usageOf(a.Response.Usage), ServiceTier: "default", SystemFingerprint: Fingerprint}
}

// chunk is the API's chat.completion.chunk object. Usage is left out
// unless the request asked for it (stream_options.include_usage); then
// every chunk carries it, null but in the last.
type chunk struct {
	ID                string        `json:"id"`
	Object            string        `json:"object"`
	Created           int           `json:"created"`
	Model             string        `json:"model"`
	ServiceTier       string        `json:"service_tier"`
	SystemFingerprint string        `json:"system_fingerprint"`
	Choices           []chunkChoice `json:"choices"`
	Usage             *usage        `json:"usage,omitempty"`
}

// chunkWithUsage is a chunk of a stream that asked for usage: its usage
// is null until the last chunk.
type chunkWithUsage struct {
	chunk
	Usage *usage `json:"usage"`
}

type chunkChoice struct {
	Index        int       `json:"index"`
	Delta        delta     `json:"delta"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

// delta is what a chunk adds to the message.
type delta struct {
	Role             string     `json:"role,omitempty"`
	Content          *string    `json:"content,omitempty"`
	ReasoningContent *string    `json:"reasoning_content,omitempty"`
	Refusal          *string    `json:"refusal,omitempty"`
	ToolCalls        []toolCall `json:"tool_calls,omitempty"`
}

// streamer writes one answer's chunks.
type streamer struct {
	s     *wire.Stream
	base  chunk
	usage bool // the request asked for usage
}

// send writes a chunk with one choice.
func (w *streamer) send(d delta, finish *string) {
	c := w.base
	c.Choices = []chunkChoice{{Delta: d, FinishReason: finish}}
	w.write(c)
}

func (w *streamer) write(c chunk) {
	if w.usage {
		w.s.Event("", chunkWithUsage{chunk: c, Usage: c.Usage})
		return
	}
	w.s.Event("", c)
}

// Stream implements [wire.API]: the answer as chat.completion.chunk
// data lines. The first chunk gives the role; then each text block's
// content, each thinking block's reasoning_content, and each tool call
// by its index (id, type and name first, then the arguments in
// pieces); then, for a reply, a chunk with an empty delta and the
// finish_reason, the usage chunk (no choices) when the request asked
// for it, and "data: [DONE]". For an error the stream ends with an
// error data line, {"error": {...}}, which the SDKs raise as an error;
// a dropped or aborted answer ends with nothing more.
func (API) Stream(s *wire.Stream, d *wire.Decoded, a *wire.Answer) {
	w := &streamer{s: s, usage: optionsOf(d).includeUsage, base: chunk{ID: completionID(a.Seq), Object: "chat.completion.chunk",
		Created: Created, Model: d.Request.Model, ServiceTier: "default", SystemFingerprint: Fingerprint}}
	empty := ""
	w.send(delta{Role: "assistant", Content: &empty}, nil)
	calls := 0
	for _, b := range a.Blocks {
		switch b.Type {
		case loop.BlockThinking:
			for _, p := range wire.Pieces(b.Text) {
				w.send(delta{ReasoningContent: &p}, nil)
			}
		case loop.BlockToolUse:
			i := calls
			calls++
			w.send(delta{ToolCalls: []toolCall{{Index: &i, ID: b.ID, Type: "function",
				Function: toolCallFunc{Name: b.Name}}}}, nil)
			for _, p := range wire.Pieces(b.Input) {
				w.send(delta{ToolCalls: []toolCall{{Index: &i, Function: toolCallFunc{Arguments: p}}}}, nil)
			}
		default:
			for _, p := range wire.Pieces(b.Text) {
				w.send(delta{Content: &p}, nil)
			}
		}
	}
	if a.Cut != nil {
		// a block the failure came inside of: its text so far (a chat
		// stream has no block ends, so it reads as content)
		for _, p := range wire.Pieces(a.Cut.Text) {
			w.send(delta{Content: &p}, nil)
		}
	}
	switch a.Outcome {
	case wire.OutcomeReply:
		finish := FinishReason(a.Response.StopReason)
		w.send(delta{}, &finish)
		if w.usage {
			c := w.base
			c.Choices = []chunkChoice{}
			c.Usage = usageOf(a.Response.Usage)
			w.write(c)
		}
		s.Data("[DONE]")
	case wire.OutcomeError:
		st := API{}.StatusOf(a.Err)
		if a.Err.Kind == loop.KindStream {
			st = wire.Status{Type: ServerError}
		}
		s.Event("", newErrorBody(st.Type, st.Code, "", message(a.Err)))
	}
	s.Flush()
}
