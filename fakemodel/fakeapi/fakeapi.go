// Package fakeapi is loopsim's fake model API server with every wire API
// it speaks on one base URL: the Messages API (package wire/messages)
// and the others listed in [APIs]. The answers come from a [loop.Model]
// (a scripted fakemodel.Model, or a fakemodel.Episode of the stochastic
// workload); package wire is the core that plays it, records each
// request and writes its faults.
//
//	srv := fakeapi.NewServer(&fakemodel.Model{Script: steps}, wire.Options{})
//	defer srv.Close()
//	// ANTHROPIC_BASE_URL=srv.URL for a Messages API agent,
//	// GOOGLE_GEMINI_BASE_URL=srv.URL for a Gemini one
//	fmt.Println(wire.Labels(srv.Requests()))
package fakeapi

import (
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/gemini"
	"github.com/loopsim/loopsim/fakemodel/wire/messages"
	"github.com/loopsim/loopsim/fakemodel/wire/responses"
	"github.com/loopsim/loopsim/loop"
)

// APIs are the wire APIs the server speaks, in the order it tries their
// routes. A new API is one line here.
func APIs() []wire.API {
	return []wire.API{
		messages.API{},
		gemini.API{},
		responses.API{},
	}
}

// NewHandler returns a handler answering every API's requests with
// model. Point the model's abort at [wire.Handler.Abort], then
// [wire.Handler.Listen].
func NewHandler(model loop.Model, opts wire.Options) *wire.Handler {
	return wire.NewHandler(model, opts, APIs()...)
}

// Start starts a server for every API, answering with model, on
// opts.Addr.
func Start(model loop.Model, opts wire.Options) (*wire.Server, error) {
	return NewHandler(model, opts).Listen()
}

// NewServer starts a server for every API, answering with model, and
// panics if it cannot listen (as net/http/httptest's NewServer does).
func NewServer(model loop.Model, opts wire.Options) *wire.Server {
	return wire.NewServer(model, opts, APIs()...)
}
