package messagesapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/loopsim/loopsim/loop"
)

// deltaBytes is the most text one delta event carries.
const deltaBytes = 64

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

// answer writes a to w.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, d *Decoded, a answer) {
	id := requestID(a.seq)
	switch a.out {
	case outGone:
		return
	case outFault:
		writeError(w, http.StatusInternalServerError, APIError, "loopsim harness fault: "+a.fault.Error(), id)
		return
	}
	if !d.Stream {
		if !h.pause(r) {
			h.markGone(a.seq)
			return
		}
		switch a.out {
		case outReply:
			writeJSON(w, http.StatusOK, h.message(d, a, true), id)
		case outError:
			status, typ := StatusOf(a.err)
			setRetryAfter(w, a.err)
			writeError(w, status, typ, a.err.Message, id)
		case outDrop:
			panic(http.ErrAbortHandler)
		case outAbort:
			h.abortResponse(r)
		}
		return
	}
	if a.out == outError && !streamsFirst(a.err, a.blocks, true) {
		status, typ := StatusOf(a.err)
		setRetryAfter(w, a.err)
		writeError(w, status, typ, a.err.Message, id)
		return
	}
	if a.out == outDrop && len(a.blocks) == 0 {
		panic(http.ErrAbortHandler)
	}
	s := &sse{h: h, w: w, r: r, bw: bufio.NewWriter(w)}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("request-id", id)
	w.WriteHeader(http.StatusOK)
	start := h.message(d, a, false)
	start.Usage.OutputTokens = min(start.Usage.OutputTokens, 1)
	s.event("message_start", map[string]any{"type": "message_start", "message": start})
	s.event("ping", map[string]any{"type": "ping"})
	for i, b := range a.blocks {
		s.block(i, b, !(a.out == outError && i == len(a.blocks)-1 && cutToolUse(b)))
	}
	switch a.out {
	case outReply:
		stop := string(a.resp.StopReason)
		s.event("message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": usageOf(a.resp.Usage)})
		s.event("message_stop", map[string]any{"type": "message_stop"})
	case outError:
		_, typ := StatusOf(a.err)
		s.event("error", newErrorBody(typ, a.err.Message, ""))
	case outDrop:
		s.flush()
		panic(http.ErrAbortHandler)
	case outAbort:
		s.flush()
		if s.err == nil {
			h.abortResponse(r)
		}
	}
	s.flush()
	if s.err != nil {
		h.markGone(a.seq)
	}
}

// abortResponse plays the user's abort: it tells the test (OnAbort), waits
// for the client to go away, then drops the connection.
func (h *Handler) abortResponse(r *http.Request) {
	if h.opts.OnAbort != nil {
		h.opts.OnAbort()
	}
	t := time.NewTimer(h.opts.AbortWait)
	defer t.Stop()
	select {
	case <-r.Context().Done():
	case <-t.C:
	}
	panic(http.ErrAbortHandler)
}

// message is the answer as the API's message object: whole for a
// non-streaming answer, empty (as message_start carries it) otherwise.
func (h *Handler) message(d *Decoded, a answer, whole bool) wireMessageOut {
	m := wireMessageOut{ID: messageID(a.seq), Type: "message", Role: "assistant", Model: d.Request.Model,
		Content: []map[string]any{}, Usage: usageOf(a.resp.Usage)}
	if whole {
		for _, b := range a.blocks {
			m.Content = append(m.Content, blockJSON(b))
		}
		stop := string(a.resp.StopReason)
		m.StopReason = &stop
	}
	return m
}

// pause waits EventDelay; false when the client went away meanwhile.
func (h *Handler) pause(r *http.Request) bool {
	if h.opts.EventDelay <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(h.opts.EventDelay)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return false
	case <-t.C:
		return true
	}
}

// sse writes server-sent events; after the first failure (the client went
// away) it writes nothing more.
type sse struct {
	h   *Handler
	w   http.ResponseWriter
	r   *http.Request
	bw  *bufio.Writer
	n   int
	err error
}

func (s *sse) event(name string, v any) {
	if s.err != nil {
		return
	}
	if s.n > 0 && s.h.opts.EventDelay > 0 {
		s.flush()
		if !s.h.pause(s.r) {
			s.err = s.r.Context().Err()
			return
		}
	}
	s.n++
	data, err := json.Marshal(v)
	if err != nil {
		s.err = err
		return
	}
	_, _ = s.bw.WriteString("event: ")
	_, _ = s.bw.WriteString(name)
	_, _ = s.bw.WriteString("\ndata: ")
	_, _ = s.bw.Write(data)
	if _, err := s.bw.WriteString("\n\n"); err != nil {
		s.err = err
	}
}

func (s *sse) flush() {
	if s.err != nil {
		return
	}
	if err := s.bw.Flush(); err != nil {
		s.err = err
		return
	}
	if err := http.NewResponseController(s.w).Flush(); err != nil {
		s.err = err
	}
}

// cutToolUse reports whether b is a tool_use whose input is not a JSON
// object: a step whose stream fails cut it in the middle of its input.
func cutToolUse(b loop.Block) bool {
	var obj map[string]json.RawMessage
	return b.Type == loop.BlockToolUse && (json.Unmarshal([]byte(b.Input), &obj) != nil || obj == nil)
}

// block streams one content block: start, deltas, and stop unless the
// block is left open (an error event cuts it in the middle).
func (s *sse) block(i int, b loop.Block, stop bool) {
	s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": startJSON(b)})
	delta := func(d map[string]any) {
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
	}
	switch b.Type {
	case loop.BlockThinking:
		for _, c := range pieces(b.Text) {
			delta(map[string]any{"type": "thinking_delta", "thinking": c})
		}
		delta(map[string]any{"type": "signature_delta", "signature": signature})
	case loop.BlockToolUse:
		for _, c := range pieces(b.Input) {
			delta(map[string]any{"type": "input_json_delta", "partial_json": c})
		}
	default:
		for _, c := range pieces(b.Text) {
			delta(map[string]any{"type": "text_delta", "text": c})
		}
	}
	if stop {
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
}

// pieces cuts s into chunks of at most deltaBytes, on rune boundaries.
func pieces(s string) []string {
	var out []string
	for len(s) > deltaBytes {
		cut := deltaBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 {
			cut = deltaBytes
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// setRetryAfter sets retry-after (whole seconds, rounded up) and
// retry-after-ms from the fault's RetryAfterMS.
func setRetryAfter(w http.ResponseWriter, e *loop.RequestError) {
	if e.RetryAfterMS <= 0 {
		return
	}
	w.Header().Set("retry-after", strconv.Itoa((e.RetryAfterMS+999)/1000))
	w.Header().Set("retry-after-ms", strconv.Itoa(e.RetryAfterMS))
}

// writeJSON writes v as a JSON body with status and the request-id header.
func writeJSON(w http.ResponseWriter, status int, v any, requestID string) {
	data, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		data, _ = json.Marshal(newErrorBody(APIError, "loopsim: encoding the answer: "+err.Error(), requestID))
	}
	w.Header().Set("Content-Type", "application/json")
	if requestID != "" {
		w.Header().Set("request-id", requestID)
	}
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// writeError writes the API's error body.
func writeError(w http.ResponseWriter, status int, typ, msg, requestID string) {
	writeJSON(w, status, newErrorBody(typ, msg, requestID), requestID)
}
