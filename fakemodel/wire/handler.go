package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/loopsim/loopsim/loop"
)

// Handler serves one or more APIs from a model: each request goes to the
// first API whose Route takes it. A request no API takes gets 404, one
// whose method its route does not take 405, both written by that API's
// Error (the first API's when none took the request).
type Handler struct {
	model loop.Model
	opts  Options
	apis  []API
	start time.Time // the handler's creation, on the monotonic clock (Record.Arrival)

	mu      sync.Mutex // serialises model calls and guards the fields below
	records []Record
	last    []uint64           // message hashes of the last request played
	abort   context.CancelFunc // cancels the model call in progress
	aborted bool               // Abort was called during the call in progress

	gate   sync.Mutex // guards closed and the calls to active.Add
	closed bool       // wait was called: no new request is served
	active sync.WaitGroup
}

// NewHandler returns a handler answering with model the requests of
// apis, tried in order. It panics when apis is empty (a programming
// error, as http.ServeMux's Handle panics on an empty pattern).
func NewHandler(model loop.Model, opts Options, apis ...API) *Handler {
	if len(apis) == 0 {
		panic("wire: NewHandler needs at least one API")
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.AbortWait <= 0 {
		opts.AbortWait = DefaultAbortWait
	}
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = DefaultReadTimeout
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	return &Handler{model: model, opts: opts, apis: slices.Clone(apis), start: time.Now()}
}

// APIs returns the APIs the handler serves, in the order it tries them.
func (h *Handler) APIs() []API { return slices.Clone(h.apis) }

// Requests returns a copy of the records of every request so far.
func (h *Handler) Requests() []Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Record, len(h.records))
	for i, r := range h.records {
		r.Appended = append([]string{}, r.Appended...)
		out[i] = r
	}
	return out
}

// Abort cancels the context of the model call in progress, if any. It
// must be called from inside the model's Stream, as a scripted abort
// step calls its Cancel: that is the only time a call is in progress.
func (h *Handler) Abort() {
	// Called by the model from inside Stream, while h.mu is held by the
	// same request: it must not take the lock.
	if f := h.abort; f != nil {
		h.aborted = true
		f()
	}
}

// wait stops new requests and waits for the ones being served.
func (h *Handler) wait() {
	h.gate.Lock()
	h.closed = true
	h.gate.Unlock()
	h.active.Wait()
}

// route is the first API that takes r, and its route; the first API and
// false when none does.
func (h *Handler) route(r *http.Request) (API, Route, bool) {
	for _, api := range h.apis {
		if rt, ok := api.Route(r); ok {
			return api, rt, true
		}
	}
	return h.apis[0], Route{}, false
}

// allows reports whether rt takes method.
func (rt Route) allows(method string) bool {
	if len(rt.Methods) == 0 {
		return method == http.MethodPost
	}
	return slices.Contains(rt.Methods, method)
}

// ServeHTTP implements http.Handler. After the server closed it answers
// 503 without asking the model.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	api, rt, routed := h.route(r)
	h.gate.Lock()
	if h.closed {
		h.gate.Unlock()
		h.writeError(w, api, &Failure{Status: http.StatusServiceUnavailable, Message: "the server is shutting down"})
		return
	}
	h.active.Add(1)
	h.gate.Unlock()
	defer h.active.Done()
	aw := &answerWriter{ResponseWriter: w}
	var seq int          // the request's record, once it has one
	defer h.finish(&seq) // after recoverAPI, which may number it
	defer h.recoverAPI(aw, api, &seq)
	w = aw
	switch {
	case !routed:
		h.writeError(w, api, &Failure{Status: http.StatusNotFound, Message: fmt.Sprintf("Not found: %s %s", r.Method, r.URL.Path)})
		return
	case !rt.allows(r.Method):
		h.writeError(w, api, &Failure{Status: http.StatusMethodNotAllowed, Message: fmt.Sprintf("Method %s not allowed", r.Method)})
		return
	}
	body, err := h.readBody(aw.ResponseWriter, r) // unwrapped: MaxBytesReader tells net/http to close after a 413
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge) && rt.Endpoint == EndpointCount:
		h.writeError(w, api, &Failure{Status: http.StatusRequestEntityTooLarge, Message: tooLargeMessage})
		return
	case errors.As(err, &tooLarge):
		typ := api.StatusOf(&loop.RequestError{Kind: loop.KindRequestTooLarge}).Type
		seq = h.refuse(w, api, Record{Answer: "413", ErrorType: typ, Error: "request body over the size limit", Fault: loop.KindRequestTooLarge},
			&Failure{Status: http.StatusRequestEntityTooLarge, Message: tooLargeMessage})
		return
	case err != nil && rt.Endpoint == EndpointCount:
		h.writeError(w, api, &Failure{Rejection: unreadable(err)})
		return
	case err != nil:
		// a broken chunked encoding, a body shorter than its length, a
		// stall past ReadTimeout, or a client gone while sending: the
		// API's 400 (net/http then closes the connection)
		seq = h.reject(w, api, nil, unreadable(err))
		return
	}
	d, err := api.Decode(rt, body, DecodeOptions{Models: h.opts.Models})
	if rt.Endpoint == EndpointCount {
		if err != nil {
			h.writeError(w, api, &Failure{Rejection: rejectionOf(err)})
			return
		}
		h.writeJSON(w, api, http.StatusOK, api.Count(d), "")
		return
	}
	if err != nil {
		seq = h.reject(w, api, d, rejectionOf(err))
		return
	}
	if d == nil {
		h.writeError(w, api, &Failure{Status: http.StatusInternalServerError, Message: "loopsim: " + api.Name() + " decoded nothing and no error"})
		return
	}
	if rt.Stream {
		d.Stream, d.Request.NonStreaming = true, false
	}
	if rt.Endpoint == EndpointCompact {
		d.Request.Purpose = loop.PurposeCompact
	}
	if v := r.Header.Get(InputTokensHeader); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			seq = h.reject(w, api, nil, &Rejection{Message: fmt.Sprintf("%s: %q is not a whole number of zero or more", InputTokensHeader, v)})
			return
		}
		d.Request.InputTokens = n
	}
	a := h.play(r.Context(), api, d)
	seq = a.Seq
	h.answer(w, r, api, d, a)
}

// readBody reads r's body, at most Options.MaxBodyBytes of it, within
// Options.ReadTimeout: a client that stalls inside its body gets an
// error, not a connection held open for ever. The deadline is lifted
// once the body is in, so that a long answer (a slow stream) is not cut.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	// a writer without deadlines (a test recorder) reads without one
	_ = rc.SetReadDeadline(time.Now().Add(h.opts.ReadTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err == nil {
		_ = rc.SetReadDeadline(time.Time{})
	}
	return body, err
}

// unreadable is the refusal of a body that could not be read.
func unreadable(err error) *Rejection {
	return &Rejection{Message: "The request body could not be read: " + err.Error()}
}

// tooLargeMessage is the message of a 413 for a body over the limit.
const tooLargeMessage = "Request exceeds the maximum allowed number of bytes."

// rejectionOf is err as a rejection: a [*Rejection] as it is, any other
// error a 400 with its text.
func rejectionOf(err error) *Rejection {
	var rj *Rejection
	if errors.As(err, &rj) {
		return rj
	}
	return &Rejection{Message: err.Error()}
}

// reject records a request the API refused, with what could be read of
// it (d, nil when nothing could), answers it with the API's error, and
// returns its record's number.
func (h *Handler) reject(w http.ResponseWriter, api API, d *Decoded, rj *Rejection) int {
	rec := Record{Answer: "rejected", ErrorType: rj.Type, Error: rj.Message}
	if rec.ErrorType == "" {
		rec.ErrorType = api.StatusOf(&loop.RequestError{Kind: loop.KindInvalidRequest}).Type
	}
	if d != nil {
		rec.Purpose, rec.Model, rec.MaxTokens, rec.Stream = d.Request.Purpose, d.Request.Model, d.Request.MaxTokens, d.Stream
		rec.Messages, rec.Roles = len(d.Request.Messages), Roles(d.Request.Messages)
	}
	return h.refuse(w, api, rec, &Failure{Rejection: rj})
}

// refuse records rec (numbered, with the API's name and f's status),
// answers f with the API's error, naming the request, and returns the
// record's number.
func (h *Handler) refuse(w http.ResponseWriter, api API, rec Record, f *Failure) int {
	seq, ans := h.recordRefusal(api, rec, f)
	h.writeAnswer(w, api, ans, f.RequestID)
	return seq
}

// recordRefusal numbers and appends rec, names the request in f, and
// returns its number and the API's error answer for it.
func (h *Handler) recordRefusal(api API, rec Record, f *Failure) (int, ErrorAnswer) {
	h.mu.Lock()
	defer h.mu.Unlock() // api.Error may panic: see recoverAPI
	rec.Seq, rec.API, rec.Arrival = len(h.records)+1, api.Name(), time.Since(h.start)
	if rec.Appended == nil {
		rec.Appended = []string{}
	}
	f.RequestID = RequestID(rec.Seq)
	ans := api.Error(f)
	rec.Status = ans.Status
	h.records = append(h.records, rec)
	return rec.Seq, ans
}

// RequestID is the id of the request numbered seq, as the answers carry
// it (see [IDHeader]): "req_loopsim_000001".
func RequestID(seq int) string { return fmt.Sprintf("req_loopsim_%06d", seq) }

// finish records when the server was through with the request whose
// record is *seq (none when 0): deferred, so that it also runs when the
// answer ends by dropping the connection.
func (h *Handler) finish(seq *int) {
	if *seq == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records[*seq-1].Done = time.Since(h.start)
}

// markGone records that the client of request seq went away before its
// answer was written in full.
func (h *Handler) markGone(seq int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records[seq-1].ClientGone = true
}
