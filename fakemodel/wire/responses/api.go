package responses

import (
	"net/http"

	"github.com/loopsim/loopsim/fakemodel/wire"
)

// The API's endpoints.
const (
	// PathResponses creates a response.
	PathResponses = "/v1/responses"
	// PathCompact compacts a conversation.
	PathCompact = "/v1/responses/compact"
	// PathInputTokens counts a request's input tokens.
	PathInputTokens = "/v1/responses/input_tokens"
)

// API is the OpenAI Responses API as a [wire.API]. The zero value is
// ready; it holds no state.
type API struct{}

var (
	_ wire.API           = API{}
	_ wire.ClientEnv     = API{}
	_ wire.ErrorStreamer = API{}
	_ wire.IDHeader      = API{}
)

// Name implements [wire.API]: "responses".
func (API) Name() string { return "responses" }

// Route implements [wire.API]: POST /v1/responses (a model call),
// /v1/responses/compact (a compaction) and /v1/responses/input_tokens
// (a count).
func (API) Route(r *http.Request) (wire.Route, bool) {
	switch r.URL.Path {
	case PathResponses:
		return wire.Route{Endpoint: wire.EndpointGenerate}, true
	case PathCompact:
		return wire.Route{Endpoint: wire.EndpointCompact}, true
	case PathInputTokens:
		return wire.Route{Endpoint: wire.EndpointCount}, true
	}
	return wire.Route{}, false
}

// Count implements [wire.API]: the input_tokens object.
func (API) Count(d *wire.Decoded) any {
	return map[string]any{"object": "response.input_tokens", "input_tokens": d.Request.InputTokens}
}

// IDHeader implements [wire.IDHeader]: the API names each request in
// x-request-id.
func (API) IDHeader() string { return "x-request-id" }

// DummyAPIKey is the key a client gets from [API.ClientEnv].
const DummyAPIKey = "loopsim-dummy-openai-key"

// ClientEnv implements [wire.ClientEnv]: OPENAI_BASE_URL, base with the
// API's /v1 prefix (the official SDKs and Codex CLI's built-in openai
// provider read it), and OPENAI_API_KEY with a dummy key.
func (API) ClientEnv(base string) []string {
	return []string{"OPENAI_BASE_URL=" + base + "/v1", "OPENAI_API_KEY=" + DummyAPIKey}
}
