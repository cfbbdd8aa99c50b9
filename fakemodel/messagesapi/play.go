package messagesapi

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"github.com/loopsim/loopsim/loop"
)

// outcome is how the model answered one request.
type outcome int

const (
	outReply outcome = iota // a response: blocks then resp
	outError                // an API error (err), possibly after blocks
	outDrop                 // the connection drops, possibly after blocks
	outAbort                // an abort step: blocks, then OnAbort
	outFault                // a harness fault (the script ran out): 500 with its message
	outGone                 // the client went away during the call
)

// answer is one model call's result, ready to be written.
type answer struct {
	seq    int
	out    outcome
	blocks []loop.Block
	resp   loop.Response
	err    *loop.RequestError
	fault  error
}

// play records the request, asks the model, and returns its answer. The
// model is called under h.mu, so requests are answered one at a time in
// the order they arrive.
func (h *Handler) play(ctx context.Context, d *Decoded) answer {
	h.mu.Lock()
	defer h.mu.Unlock()
	rec := Record{Seq: len(h.records) + 1, Purpose: d.Request.Purpose, Model: d.Request.Model,
		MaxTokens: d.Request.MaxTokens, Stream: d.Stream, Messages: len(d.Request.Messages),
		Tools: len(d.Request.Tools), InputTokens: d.Request.InputTokens, SystemTokens: d.SystemTokens}
	rec.Roles = roles(d.Request.Messages)
	prev := h.last
	for rec.Kept < min(len(prev), len(d.hashes)) && prev[rec.Kept] == d.hashes[rec.Kept] {
		rec.Kept++
	}
	rec.Dropped = len(prev) - rec.Kept
	rec.Appended = slices.Clone(d.Shapes[rec.Kept:])
	if rec.Appended == nil {
		rec.Appended = []string{}
	}
	h.last = d.hashes

	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	h.abort, h.aborted = cancel, false
	var blocks []loop.Block
	resp, err := h.model.Stream(actx, d.Request, func(b loop.Block) { blocks = append(blocks, b) })
	aborted := h.aborted
	h.abort, h.aborted = nil, false

	a := answer{seq: rec.Seq, blocks: blocks, resp: resp}
	var re *loop.RequestError
	switch {
	case err == nil:
		a.out = outReply
		rec.Answer = replyLabel(blocks, resp)
		rec.Status = 200
	case ctx.Err() != nil:
		a.out = outGone
		rec.Answer = "gone"
		rec.ClientGone = true
	case aborted || errors.Is(err, context.Canceled) && actx.Err() != nil:
		a.out = outAbort
		rec.Answer = "abort"
		rec.Status = 200
	case errors.As(err, &re) && re.Kind == loop.KindConnection:
		a.out, a.err = outDrop, re
		rec.Answer = "drop"
		if d.Stream && len(blocks) > 0 {
			rec.Status = 200
			rec.Blocks = len(blocks)
		}
	case errors.As(err, &re):
		a.out, a.err = outError, re
		status, typ := StatusOf(re)
		rec.ErrorType = typ
		if streamsFirst(re, blocks, d.Stream) {
			rec.Answer, rec.Status, rec.Blocks = "stream_error", 200, len(blocks)
		} else {
			rec.Answer, rec.Status = strconv.Itoa(status), status
		}
	default:
		a.out, a.fault = outFault, err
		rec.Answer, rec.Status, rec.ErrorType, rec.Error = "fault", 500, APIError, err.Error()
	}
	if a.out == outReply || a.out == outAbort {
		rec.Blocks = len(blocks)
	}
	h.records = append(h.records, rec)
	return a
}

// streamsFirst reports whether an error is sent as an error event after a
// stream has started: it follows content blocks.
func streamsFirst(re *loop.RequestError, blocks []loop.Block, stream bool) bool {
	return stream && (re.Kind == loop.KindStream || len(blocks) > 0)
}

// replyLabel is a successful answer in the profile's notation.
func replyLabel(blocks []loop.Block, resp loop.Response) string {
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

// roles is the role of each message: u for user, a for assistant.
func roles(msgs []loop.Message) string {
	out := make([]byte, len(msgs))
	for i, m := range msgs {
		out[i] = 'u'
		if m.Role == loop.RoleAssistant {
			out[i] = 'a'
		}
	}
	return string(out)
}
