package wire

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"

	"github.com/loopsim/loopsim/loop"
)

// Server is a fake API server listening on a local port, like
// net/http/httptest's servers. Create one with [NewServer], [Start] or
// [Handler.Listen]; Close it when done.
type Server struct {
	// URL is the base URL, "http://127.0.0.1:PORT": every API the server
	// speaks is under it (ANTHROPIC_BASE_URL, OPENAI_BASE_URL with /v1,
	// the Gemini SDK's base URL).
	URL string

	handler  *Handler
	listener net.Listener
	srv      *http.Server
	served   chan struct{}
	close    sync.Once
}

// NewServer starts a server answering the requests of apis with model,
// and panics if it cannot listen (as net/http/httptest's NewServer does).
// Use [Start] to get the error instead.
func NewServer(model loop.Model, opts Options, apis ...API) *Server {
	s, err := Start(model, opts, apis...)
	if err != nil {
		panic(err)
	}
	return s
}

// Start starts a server answering the requests of apis with model on
// opts.Addr.
func Start(model loop.Model, opts Options, apis ...API) (*Server, error) {
	return NewHandler(model, opts, apis...).Listen()
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
		return nil, fmt.Errorf("wire: listen on %s: %w", addr, err)
	}
	s := &Server{URL: "http://" + l.Addr().String(), handler: h, listener: l,
		srv: &http.Server{Handler: h, ReadHeaderTimeout: h.opts.ReadTimeout, IdleTimeout: h.opts.IdleTimeout}, served: make(chan struct{})}
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
// a fakemodel.Model's Cancel (or a fakemodel.Episode's cancel) at it, so
// that an abort step ends the response being answered. To set it before
// the server starts, use [NewHandler], then [Handler.Listen].
func (s *Server) Abort() { s.handler.Abort() }
