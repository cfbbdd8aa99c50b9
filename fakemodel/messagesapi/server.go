package messagesapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/loopsim/loopsim/loop"
)

// Options configure a [Server]. The zero value is a server on a free
// local port that checks no model's output maximum.
type Options struct {
	// Addr is the address to listen on; empty means "127.0.0.1:0", a free
	// port.
	Addr string
	// Models are the known models: a request whose max_tokens is over its
	// model's MaxOutputTokens is rejected as the API rejects it. Requests
	// for other models are not checked.
	Models []loop.ModelInfo
	// EventDelay makes streams slow: the server waits this long before
	// each event after message_start (and before a non-streaming answer).
	EventDelay time.Duration
	// MaxBodyBytes is the largest request body accepted; a larger one gets
	// 413 request_too_large. Zero means [DefaultMaxBodyBytes].
	MaxBodyBytes int64
	// OnAbort is called when an abort step plays (see [Server.Abort]),
	// after the blocks before it were sent: a test points it at the
	// client's cancel function, as the user pressing escape.
	OnAbort func()
	// AbortWait is how long the server holds an aborted response open
	// for the client to go away before it drops the connection; zero
	// means [DefaultAbortWait].
	AbortWait time.Duration
}

// InputTokensHeader is a request header a client that counts its own
// requests (loopsim's loop over an SDK) may send: the request's input
// token count, used instead of the server's estimate, so that the
// answers (usage, prompt-too-long, conditions on input_tokens) are the
// ones the in-process fakes give for the same count. Agents that do not
// send it get the server's estimate.
const InputTokensHeader = "Loopsim-Input-Tokens"

// DefaultMaxBodyBytes is the API's request size limit, 32 MB.
const DefaultMaxBodyBytes = 32 << 20

// DefaultAbortWait is how long an aborted response waits for the client
// to go away.
const DefaultAbortWait = 10 * time.Second

// Server is a fake Messages API listening on a local port. Create one
// with [NewServer] or [Start]; Close it when done.
type Server struct {
	// URL is the base URL, "http://127.0.0.1:PORT", for ANTHROPIC_BASE_URL
	// or the SDK's base URL option.
	URL string

	handler  *Handler
	listener net.Listener
	srv      *http.Server
	served   chan struct{}
	close    sync.Once
}

// NewServer starts a server answering with model, and panics if it cannot
// listen (as net/http/httptest's NewServer does). Use [Start] to get the
// error instead.
func NewServer(model loop.Model, opts Options) *Server {
	s, err := Start(model, opts)
	if err != nil {
		panic(err)
	}
	return s
}

// Start starts a server answering with model on opts.Addr.
func Start(model loop.Model, opts Options) (*Server, error) {
	return NewHandler(model, opts).Listen()
}

// Listen starts a server for h on its Options.Addr. Creating the handler
// first lets a model be pointed at [Handler.Abort] before any request
// can arrive.
func (h *Handler) Listen() (*Server, error) {
	addr := h.opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("messagesapi: listen on %s: %w", addr, err)
	}
	s := &Server{URL: "http://" + l.Addr().String(), handler: h, listener: l,
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, served: make(chan struct{})}
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(l)
	}()
	return s, nil
}

// Close stops the server: it closes the listener and every connection,
// and waits until every request handler has returned.
func (s *Server) Close() {
	s.close.Do(func() {
		_ = s.srv.Close()
		<-s.served
		s.handler.wait()
	})
}

// Handler is the server's http.Handler.
func (s *Server) Handler() *Handler { return s.handler }

// Requests returns a copy of the records of every request so far.
func (s *Server) Requests() []Record { return s.handler.Requests() }

// WriteJSONL writes the records of every request so far as JSON Lines.
func (s *Server) WriteJSONL(w io.Writer) error { return WriteJSONL(w, s.handler.Requests()) }

// Abort cancels the context of the model call in progress, if any: point
// a [fakemodel.Model]'s Cancel (or an [fakemodel.Episode]'s cancel) at it,
// so that an abort step ends the response being answered. To set it
// before the server starts, use [NewHandler], then [Handler.Listen].
func (s *Server) Abort() { s.handler.Abort() }

// Handler serves the Messages API from a model: POST /v1/messages and
// POST /v1/messages/count_tokens. Any other path gets 404
// not_found_error.
type Handler struct {
	model loop.Model
	opts  Options

	mu      sync.Mutex // serialises model calls and guards the fields below
	records []Record
	last    []uint64           // message hashes of the last request played
	abort   context.CancelFunc // cancels the model call in progress
	aborted bool               // Abort was called during the call in progress

	gate   sync.Mutex // guards closed and the calls to active.Add
	closed bool       // wait was called: no new request is served
	active sync.WaitGroup
}

// NewHandler returns a handler answering with model.
func NewHandler(model loop.Model, opts Options) *Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.AbortWait <= 0 {
		opts.AbortWait = DefaultAbortWait
	}
	return &Handler{model: model, opts: opts}
}

// Requests returns a copy of the records of every request so far.
func (h *Handler) Requests() []Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Record, len(h.records))
	for i, r := range h.records {
		r.Appended = append([]string(nil), r.Appended...)
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

// ServeHTTP implements http.Handler. After the server closed it answers
// 503 without asking the model.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.gate.Lock()
	if h.closed {
		h.gate.Unlock()
		writeError(w, http.StatusServiceUnavailable, APIError, "the server is shutting down", "")
		return
	}
	h.active.Add(1)
	h.gate.Unlock()
	defer h.active.Done()
	switch r.URL.Path {
	case "/v1/messages":
	case "/v1/messages/count_tokens":
		h.countTokens(w, r)
		return
	default:
		writeError(w, http.StatusNotFound, NotFoundError, fmt.Sprintf("Not found: %s %s", r.Method, r.URL.Path), "")
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, InvalidRequestError, fmt.Sprintf("Method %s not allowed", r.Method), "")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		rec := h.record(Record{Answer: "413", Status: http.StatusRequestEntityTooLarge, ErrorType: RequestTooLarge,
			Error: "request body over the size limit"})
		writeError(w, http.StatusRequestEntityTooLarge, RequestTooLarge, "Request exceeds the maximum allowed number of bytes.", requestID(rec))
		return
	}
	if err != nil {
		return // the client went away while sending
	}
	d, err := Decode(body, h.opts.Models)
	if err != nil {
		rec := Record{Answer: "rejected", Status: http.StatusBadRequest, ErrorType: InvalidRequestError, Error: err.Error()}
		if d != nil {
			rec.Purpose, rec.Model, rec.MaxTokens, rec.Stream = d.Request.Purpose, d.Request.Model, d.Request.MaxTokens, d.Stream
			rec.Messages, rec.Roles = len(d.Request.Messages), roles(d.Request.Messages)
		}
		seq := h.record(rec)
		writeError(w, http.StatusBadRequest, InvalidRequestError, err.Error(), requestID(seq))
		return
	}
	if v := r.Header.Get(InputTokensHeader); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			msg := fmt.Sprintf("%s: %q is not a whole number of zero or more", InputTokensHeader, v)
			rec := h.record(Record{Answer: "rejected", Status: http.StatusBadRequest, ErrorType: InvalidRequestError, Error: msg})
			writeError(w, http.StatusBadRequest, InvalidRequestError, msg, requestID(rec))
			return
		}
		d.Request.InputTokens = n
	}
	a := h.play(r.Context(), d)
	h.answer(w, r, d, a)
}

// countTokens answers POST /v1/messages/count_tokens with the server's
// estimate. It is not recorded and consumes no step.
func (h *Handler) countTokens(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, RequestTooLarge, "Request exceeds the maximum allowed number of bytes.", "")
		return
	}
	d, err := decodeCount(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, InvalidRequestError, err.Error(), "")
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"input_tokens": d.Request.InputTokens}, "")
}

// record appends rec (numbered) and returns its sequence number.
func (h *Handler) record(rec Record) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	rec.Seq = len(h.records) + 1
	h.records = append(h.records, rec)
	return rec.Seq
}

func requestID(seq int) string { return fmt.Sprintf("req_loopsim_%06d", seq) }

// markGone records that the client of request seq went away before its
// answer was written in full.
func (h *Handler) markGone(seq int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records[seq-1].ClientGone = true
}
