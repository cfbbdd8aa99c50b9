package chat

import (
	"net/http"

	"github.com/loopsim/loopsim/fakemodel/wire"
)

// Path is the endpoint the API serves. The SDKs join their base URL
// (which ends in /v1: OPENAI_BASE_URL=http://HOST:PORT/v1) and
// "chat/completions".
const Path = "/v1/chat/completions"

// API is OpenAI's Chat Completions API as a [wire.API]. Its zero value
// is ready to use.
type API struct{}

var _ wire.API = API{}

// Name implements [wire.API]: "chat".
func (API) Name() string { return "chat" }

// Route implements [wire.API]: POST /v1/chat/completions is a model
// call. The path without /v1 is not the API's (the SDKs only call it
// so when their base URL leaves out /v1, a misconfiguration the 404
// shows).
func (API) Route(r *http.Request) (wire.Route, bool) {
	if r.URL.Path != Path {
		return wire.Route{}, false
	}
	return wire.Route{Endpoint: wire.EndpointGenerate}, true
}

// Count implements [wire.API]. Chat Completions has no token-count
// endpoint, so Route never asks for one; Count answers the estimate as
// a usage object would name it, for a core that asks anyway.
func (API) Count(d *wire.Decoded) any {
	return map[string]int{"prompt_tokens": d.Request.InputTokens}
}

// DummyAPIKey is the OPENAI_API_KEY a client gets from [API.ClientEnv],
// the same as the Responses API's (both set the variable).
const DummyAPIKey = "loopsim-dummy-openai-key"

var _ wire.ClientEnv = API{}

// ClientEnv points an OpenAI client at base: OPENAI_BASE_URL (the
// official SDKs' base URL, which ends in /v1) and OPENAI_API_KEY, a
// dummy key.
func (API) ClientEnv(base string) []string {
	return []string{"OPENAI_BASE_URL=" + base + "/v1", "OPENAI_API_KEY=" + DummyAPIKey}
}
