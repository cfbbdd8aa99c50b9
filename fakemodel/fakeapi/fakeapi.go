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
	"strings"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/chat"
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
		chat.API{},
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

// ClientEnv is the environment that points a client of any of the APIs
// at a server whose base URL is base: each API's variables
// ([wire.ClientEnv]) in the order of [APIs], a variable two APIs share
// (OPENAI_BASE_URL for Chat Completions and Responses) once.
func ClientEnv(base string) []string {
	var out []string
	seen := map[string]bool{}
	for _, api := range APIs() {
		ce, ok := api.(wire.ClientEnv)
		if !ok {
			continue
		}
		for _, kv := range ce.ClientEnv(base) {
			name, _, _ := strings.Cut(kv, "=")
			if !seen[name] {
				seen[name] = true
				out = append(out, kv)
			}
		}
	}
	return out
}
