package gemini

import (
	"net/http"
	"strings"

	"github.com/loopsim/loopsim/fakemodel/wire"
)

// The methods a model path names after its colon.
const (
	methodGenerate = "generateContent"
	methodStream   = "streamGenerateContent"
	methodCount    = "countTokens"
)

// API is Gemini's generateContent as the fake server speaks it; the zero
// value is ready to use.
type API struct{}

var (
	_ wire.API       = API{}
	_ wire.ClientEnv = API{}
)

// Name implements [wire.API]: "gemini".
func (API) Name() string { return "gemini" }

// Route implements [wire.API]: POST /v1beta/models/{model}:generateContent,
// :streamGenerateContent?alt=sse and :countTokens, and the same under
// /v1/. Any model name is taken. :streamGenerateContent without alt=sse
// (the API's JSON-array stream, which no official SDK asks for) is not
// served: the route is not taken and the server answers 404.
func (API) Route(r *http.Request) (wire.Route, bool) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1beta/models/")
	if !ok {
		rest, ok = strings.CutPrefix(r.URL.Path, "/v1/models/")
	}
	if !ok {
		return wire.Route{}, false
	}
	i := strings.LastIndexByte(rest, ':')
	if i <= 0 || strings.Contains(rest[:i], "/") {
		return wire.Route{}, false
	}
	rt := wire.Route{Methods: []string{http.MethodPost}, Model: rest[:i]}
	switch rest[i+1:] {
	case methodGenerate:
		rt.Endpoint = wire.EndpointGenerate
	case methodStream:
		if r.URL.Query().Get("alt") != "sse" {
			return wire.Route{}, false
		}
		rt.Endpoint, rt.Stream = wire.EndpointGenerate, true
	case methodCount:
		rt.Endpoint = wire.EndpointCount
	default:
		return wire.Route{}, false
	}
	return rt, true
}

// DummyAPIKey is the key a client gets from [API.ClientEnv].
const DummyAPIKey = "loopsim-dummy-gemini-key"

// ClientEnv points a Gemini client at base: GOOGLE_GEMINI_BASE_URL (the
// genai SDKs' and Gemini CLI's base URL), GEMINI_API_KEY and
// GOOGLE_API_KEY (the SDKs prefer the second when both are set) with a
// dummy key, and GOOGLE_GENAI_USE_VERTEXAI and GOOGLE_GENAI_USE_GCA set
// to false, so that neither the SDKs nor Gemini CLI choose Vertex AI or
// a Google login over the Gemini API.
func (API) ClientEnv(base string) []string {
	return []string{"GOOGLE_GEMINI_BASE_URL=" + base, "GEMINI_API_KEY=" + DummyAPIKey, "GOOGLE_API_KEY=" + DummyAPIKey,
		"GOOGLE_GENAI_USE_VERTEXAI=false", "GOOGLE_GENAI_USE_GCA=false"}
}
