package messages

import (
	"net/http"

	"github.com/loopsim/loopsim/fakemodel/wire"
)

// API is the Messages API as a [wire.API]: POST /v1/messages and POST
// /v1/messages/count_tokens. The zero value is ready to use.
type API struct{}

var _ wire.API = API{}

// Name is "messages".
func (API) Name() string { return "messages" }

// Route takes /v1/messages (a model call) and /v1/messages/count_tokens
// (a token count), both POST.
func (API) Route(r *http.Request) (wire.Route, bool) {
	switch r.URL.Path {
	case "/v1/messages":
		return wire.Route{Endpoint: wire.EndpointGenerate}, true
	case "/v1/messages/count_tokens":
		return wire.Route{Endpoint: wire.EndpointCount}, true
	}
	return wire.Route{}, false
}

// IDHeader is "request-id": every answer to a recorded request names it.
func (API) IDHeader() string { return "request-id" }

// DummyAPIKey is the ANTHROPIC_API_KEY a client gets from [API.ClientEnv].
const DummyAPIKey = "sk-ant-loopsim-dummy-key"

// ClientEnv points a Messages API client at base: ANTHROPIC_BASE_URL
// (the SDKs' and Claude Code's base URL, without /v1) and
// ANTHROPIC_API_KEY, a dummy key.
func (API) ClientEnv(base string) []string {
	return []string{"ANTHROPIC_BASE_URL=" + base, "ANTHROPIC_API_KEY=" + DummyAPIKey}
}
