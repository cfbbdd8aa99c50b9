package gemini

import (
	"encoding/json"
	"fmt"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// The finish reasons the server sends.
const (
	FinishStop      = "STOP"
	FinishMaxTokens = "MAX_TOKENS"
	// FinishMalformedCall is a reply whose function call could not be
	// parsed: the loop's tool_use stop reason without a tool_use block.
	FinishMalformedCall = "MALFORMED_FUNCTION_CALL"
)

// malformedMessage is the finishMessage of a malformed function call.
const malformedMessage = "Malformed function call: the model's function call could not be parsed."

// response is a GenerateContentResponse as the server writes it. The
// candidate comes last, so a stream's last event ends with its finish
// reason (the order of fields means nothing to a JSON reader).
type response struct {
	ModelVersion  string      `json:"modelVersion"`
	ResponseID    string      `json:"responseId"`
	UsageMetadata *usage      `json:"usageMetadata,omitempty"`
	Candidates    []candidate `json:"candidates"`
}

// candidate is the one candidate of an answer.
type candidate struct {
	Content       content `json:"content"`
	FinishReason  string  `json:"finishReason,omitempty"`
	FinishMessage string  `json:"finishMessage,omitempty"`
	Index         int     `json:"index"`
}

// content is the model's turn.
type content struct {
	Role  string `json:"role"`
	Parts []part `json:"parts,omitempty"`
}

// part is one part of the model's turn: text, a thought or a function
// call.
type part struct {
	Text         *string       `json:"text,omitempty"`
	Thought      bool          `json:"thought,omitempty"`
	FunctionCall *functionCall `json:"functionCall,omitempty"`
}

// functionCall is a tool_use as the API writes it.
type functionCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// usage is the API's usageMetadata.
type usage struct {
	PromptTokenCount        int              `json:"promptTokenCount"`
	CandidatesTokenCount    int              `json:"candidatesTokenCount,omitempty"`
	CachedContentTokenCount int              `json:"cachedContentTokenCount,omitempty"`
	TotalTokenCount         int              `json:"totalTokenCount"`
	PromptTokensDetails     []modalityTokens `json:"promptTokensDetails,omitempty"`
}

// modalityTokens is a token count of one modality.
type modalityTokens struct {
	Modality   string `json:"modality"`
	TokenCount int    `json:"tokenCount"`
}

// usageOf is the loop's usage in the API's terms: the prompt counts every
// input token, cached or not, and cachedContentTokenCount the ones read
// from the cache; tokens written to a cache have no count of their own.
// With final false it is a stream chunk's running total before the
// answer's output is known.
func usageOf(u loop.Usage, final bool) *usage {
	prompt := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
	out := &usage{PromptTokenCount: prompt, CachedContentTokenCount: u.CacheReadInputTokens, TotalTokenCount: prompt,
		PromptTokensDetails: []modalityTokens{{Modality: "TEXT", TokenCount: prompt}}}
	if final {
		out.CandidatesTokenCount = u.OutputTokens
		out.TotalTokenCount += u.OutputTokens
	}
	return out
}

// finishOf is the finish reason and message for a reply.
func finishOf(blocks []loop.Block, r loop.Response) (string, string) {
	switch r.StopReason {
	case loop.StopMaxTokens:
		return FinishMaxTokens, ""
	case loop.StopToolUse:
		for _, b := range blocks {
			if b.Type == loop.BlockToolUse {
				return FinishStop, ""
			}
		}
		return FinishMalformedCall, malformedMessage
	}
	return FinishStop, ""
}

// partOf is a whole block as a part. A function call whose input is not
// a JSON object (a truncated reply cut it) is sent with args {}: a part
// carries its arguments whole.
func partOf(b loop.Block) part {
	switch b.Type {
	case loop.BlockToolUse:
		args := json.RawMessage(b.Input)
		if wire.CutToolUse(b) {
			args = json.RawMessage("{}")
		}
		return part{FunctionCall: &functionCall{ID: b.ID, Name: b.Name, Args: args}}
	case loop.BlockThinking:
		return part{Text: &b.Text, Thought: true}
	}
	return part{Text: &b.Text}
}

// responseID is the answer's responseId.
func responseID(seq int) string { return fmt.Sprintf("loopsim-%06d", seq) }

// Reply implements [wire.API]: one GenerateContentResponse with every
// block as a part of the one candidate, its finish reason (STOP, or
// MAX_TOKENS for a truncated reply, MALFORMED_FUNCTION_CALL for a
// tool_use stop without a tool_use) and the usage.
func (API) Reply(d *wire.Decoded, a *wire.Answer) any {
	c := candidate{Content: content{Role: "model"}}
	for _, b := range a.Blocks {
		c.Content.Parts = append(c.Content.Parts, partOf(b))
	}
	c.FinishReason, c.FinishMessage = finishOf(a.Blocks, a.Response)
	return response{Candidates: []candidate{c}, UsageMetadata: usageOf(a.Response.Usage, true),
		ModelVersion: d.Request.Model, ResponseID: responseID(a.Seq)}
}

// Stream implements [wire.API]: data-only server-sent events, each a
// GenerateContentResponse whose candidate carries one part: text and
// thoughts in pieces of at most [wire.DeltaBytes], a function call
// whole. Every chunk has the prompt's usage; for a reply, the last one
// also carries the finish reason and the whole usage (a reply with no
// block is one chunk with no part); a failure's chunks count the
// request's input. A failure after the blocks is one
// more chunk, the API's error object ({"error":{...}}, as the genai SDKs
// read an error in a stream); a drop or an abort ends after the blocks.
// A function call whose input the step cut is sent with args {} (the
// API sends calls whole), but for a last one before an error chunk,
// which is not sent: the loop drops a call an error cut, as it never
// finished.
func (a API) Stream(s *wire.Stream, d *wire.Decoded, ans *wire.Answer) {
	blocks := ans.Blocks
	if ans.Outcome == wire.OutcomeError {
		if n := len(blocks); n > 0 && wire.CutToolUse(blocks[n-1]) {
			blocks = blocks[:n-1]
		}
	}
	var chunks []part
	for _, b := range blocks {
		if b.Type == loop.BlockToolUse {
			chunks = append(chunks, partOf(b))
			continue
		}
		for _, piece := range wire.Pieces(b.Text) {
			chunks = append(chunks, part{Text: &piece, Thought: b.Type == loop.BlockThinking})
		}
	}
	// a failure has no usage of its own: its chunks count the request
	prompt := ans.Response.Usage
	if ans.Outcome != wire.OutcomeReply {
		prompt = loop.Usage{InputTokens: d.Request.InputTokens}
	}
	chunk := func(p []part) response {
		return response{Candidates: []candidate{{Content: content{Role: "model", Parts: p}}},
			UsageMetadata: usageOf(prompt, false), ModelVersion: d.Request.Model, ResponseID: responseID(ans.Seq)}
	}
	if ans.Outcome == wire.OutcomeReply {
		var last []part
		if n := len(chunks); n > 0 {
			chunks, last = chunks[:n-1], chunks[n-1:]
		}
		for _, p := range chunks {
			s.Event("", chunk([]part{p}))
		}
		end := chunk(last)
		end.Candidates[0].FinishReason, end.Candidates[0].FinishMessage = finishOf(ans.Blocks, ans.Response)
		end.UsageMetadata = usageOf(ans.Response.Usage, true)
		s.Event("", end)
		s.Flush()
		return
	}
	if ans.Cut != nil {
		// a block the failure came inside of: its text so far (a part has
		// no end of its own, so it reads as content)
		for _, piece := range wire.Pieces(ans.Cut.Text) {
			chunks = append(chunks, part{Text: &piece})
		}
	}
	for _, p := range chunks {
		s.Event("", chunk([]part{p}))
	}
	if ans.Outcome == wire.OutcomeError && ans.Err != nil {
		s.Event("", a.Error(&wire.Failure{Err: streamed(ans.Err)}).Body)
	}
	s.Flush()
}

// streamed is a failure as an error chunk reports it: a stream error is
// the server's (500 INTERNAL); other kinds keep their status.
func streamed(e *loop.RequestError) *loop.RequestError {
	if e.Kind != loop.KindStream {
		return e
	}
	c := *e
	c.Kind, c.Status = loop.KindServer, 500
	return &c
}

// Count implements [wire.API]: {"totalTokens": N} with N the request's
// estimated size, and its one modality.
func (API) Count(d *wire.Decoded) any {
	n := d.Request.InputTokens
	return map[string]any{"totalTokens": n, "promptTokensDetails": []modalityTokens{{Modality: "TEXT", TokenCount: n}}}
}
