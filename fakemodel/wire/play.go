package wire

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/loopsim/loopsim/loop"
)

// play records the request, asks the model, and returns its answer. The
// model is called under h.mu, so requests are answered one at a time in
// the order they arrive.
func (h *Handler) play(ctx context.Context, api API, d *Decoded) *Answer {
	h.mu.Lock()
	defer h.mu.Unlock()
	rec := Record{Seq: len(h.records) + 1, API: api.Name(), Purpose: d.Request.Purpose, Model: d.Request.Model,
		MaxTokens: d.Request.MaxTokens, Stream: d.Stream, Messages: len(d.Request.Messages),
		Tools: len(d.Request.Tools), InputTokens: d.Request.InputTokens, SystemTokens: d.SystemTokens,
		Arrival: time.Since(h.start)}
	rec.Roles = Roles(d.Request.Messages)
	rec.Kept, rec.Dropped, rec.Appended = continuation(h.last, d.Hashes, d.Shapes)
	h.last = d.Hashes

	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	h.abort, h.aborted = cancel, false
	var blocks []loop.Block
	resp, err := h.model.Stream(actx, d.Request, func(b loop.Block) { blocks = append(blocks, b) })
	aborted := h.aborted
	h.abort, h.aborted = nil, false

	a := &Answer{Seq: rec.Seq, Blocks: blocks, Response: resp}
	var cut CutOpen
	if err != nil && d.Stream && errors.As(err, &cut) {
		b := cut.CutBlock()
		a.Cut = &b
	}
	var re *loop.RequestError
	switch {
	case err == nil:
		a.Outcome = OutcomeReply
		rec.Answer = ReplyLabel(blocks, resp)
		rec.Status = 200
		rec.Response = resp
	case ctx.Err() != nil:
		a.Outcome = OutcomeGone
		rec.Answer = "gone"
		rec.ClientGone = true
	case aborted || errors.Is(err, context.Canceled) && actx.Err() != nil:
		a.Outcome = OutcomeAbort
		rec.Answer = "abort"
		rec.Status = 200
	case errors.As(err, &re) && re.Kind == loop.KindConnection:
		a.Outcome, a.Err = OutcomeDrop, re
		rec.Answer, rec.Fault = "drop", re.Kind
		if d.Stream && (len(blocks) > 0 || a.Cut != nil) {
			rec.Status = 200
			rec.Blocks = len(blocks)
		}
	case errors.As(err, &re):
		a.Outcome, a.Err = OutcomeError, re
		st := api.StatusOf(re)
		rec.ErrorType, rec.Fault = st.Type, re.Kind
		if StreamsFirst(re, blocks, d.Stream) {
			rec.Answer, rec.Status, rec.Blocks = "stream_error", 200, len(blocks)
		} else {
			rec.Answer, rec.Status = strconv.Itoa(st.HTTP), st.HTTP
			if d.Stream && StreamsError(api, re) {
				rec.Status = 200
			}
		}
	default:
		a.Outcome, a.Fault = OutcomeFault, err
		rec.Answer, rec.Status, rec.Error = "fault", 500, err.Error()
		rec.ErrorType = api.StatusOf(&loop.RequestError{Kind: loop.KindServer, Status: 500}).Type
	}
	if a.Outcome == OutcomeReply || a.Outcome == OutcomeAbort {
		rec.Blocks = len(blocks)
	}
	h.records = append(h.records, rec)
	return a
}

// continuation compares a request's messages (their hashes and shapes)
// with the previous request's (prev): how many leading messages it kept,
// how many of the rest it dropped, and the shape of each message it
// appended after the kept ones (never nil).
func continuation(prev, hashes []uint64, shapes []string) (kept, dropped int, appended []string) {
	for kept < min(len(prev), len(hashes)) && prev[kept] == hashes[kept] {
		kept++
	}
	appended = []string{}
	if kept < len(shapes) {
		appended = slices.Clone(shapes[kept:])
	}
	return kept, len(prev) - kept, appended
}

// StreamsFirst reports whether a failure is sent inside a stream (the
// API's error event, or the stream closed without its final event)
// rather than as an error status: the request asked for a stream and the
// failure is a stream error or follows content blocks.
func StreamsFirst(re *loop.RequestError, blocks []loop.Block, stream bool) bool {
	return stream && (re.Kind == loop.KindStream || len(blocks) > 0)
}

// ReplyLabel is a successful answer in the profile's notation: trunc (a
// reply cut at its output cap), tool (a tool call), empty (no content),
// malformed (a tool-use stop reason without a tool call), else text.
func ReplyLabel(blocks []loop.Block, resp loop.Response) string {
	tools := false
	for _, b := range blocks {
		tools = tools || b.Type == loop.BlockToolUse
	}
	switch {
	case resp.StopReason == loop.StopMaxTokens:
		return "trunc"
	case tools:
		return "tool"
	case len(blocks) == 0:
		return "empty"
	case resp.StopReason == loop.StopToolUse:
		return "malformed"
	}
	return "text"
}

// ErrorStreamer is implemented by an API that sends some failures inside
// a stream even before any content, where the others answer with an
// error status (the Responses API reports a context overflow as
// response.failed, and Codex reads it only there).
type ErrorStreamer interface {
	// StreamsError reports whether a streamed request's failure re,
	// before any content, is sent inside the stream.
	StreamsError(re *loop.RequestError) bool
}

// StreamsError reports whether api sends re inside a stream before any
// content (see [ErrorStreamer]). Its record keeps the failure's status
// as its answer (M:400); the status sent is 200.
func StreamsError(api API, re *loop.RequestError) bool {
	es, ok := api.(ErrorStreamer)
	return ok && es.StreamsError(re)
}
