package gemini_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/gemini"
)

// The API takes its three methods under /v1beta and /v1, for any model,
// and nothing else.
func TestRoute(t *testing.T) {
	tests := []struct {
		target string
		ok     bool
		want   wire.Route
	}{
		{"/v1beta/models/gemini-2.5-pro:generateContent", true, wire.Route{Endpoint: wire.EndpointGenerate, Model: "gemini-2.5-pro"}},
		{"/v1/models/gemini-2.5-flash-lite:generateContent", true, wire.Route{Endpoint: wire.EndpointGenerate, Model: "gemini-2.5-flash-lite"}},
		{"/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse", true,
			wire.Route{Endpoint: wire.EndpointGenerate, Model: "gemini-3-pro-preview", Stream: true}},
		{"/v1/models/m:streamGenerateContent?alt=sse", true, wire.Route{Endpoint: wire.EndpointGenerate, Model: "m", Stream: true}},
		{"/v1beta/models/any-side-model:countTokens", true, wire.Route{Endpoint: wire.EndpointCount, Model: "any-side-model"}},
		{"/v1beta/models/m:streamGenerateContent", false, wire.Route{}},
		{"/v1beta/models/m:streamGenerateContent?alt=json", false, wire.Route{}},
		{"/v1beta/models/m:embedContent", false, wire.Route{}},
		{"/v1beta/models/:generateContent", false, wire.Route{}},
		{"/v1beta/models/a/b:generateContent", false, wire.Route{}},
		{"/v1beta/models/m", false, wire.Route{}},
		{"/v1/messages", false, wire.Route{}},
		{"/v1/chat/completions", false, wire.Route{}},
		{"/v2/models/m:generateContent", false, wire.Route{}},
	}
	for _, tt := range tests {
		rt, ok := api.Route(httptest.NewRequest("POST", tt.target, nil))
		assert.Equal(t, tt.ok, ok, tt.target)
		if tt.ok {
			assert.Equal(t, []string{"POST"}, rt.Methods, tt.target)
			rt.Methods = nil
			assert.Equal(t, tt.want, rt, tt.target)
		}
	}
	assert.Equal(t, "gemini", api.Name())
}

// The genai SDK pointed at the server by the variables ClientEnv gives
// (the SDK reads them when its config leaves them out) reaches it with
// the dummy key.
func TestClientEnvPointsTheSDKAtTheServer(t *testing.T) {
	srv := serve(t, reply)
	for _, kv := range api.ClientEnv(srv.URL) {
		name, value, _ := strings.Cut(kv, "=")
		t.Setenv(name, value)
	}
	c, err := genai.NewClient(t.Context(), nil)
	require.NoError(t, err)
	assert.Equal(t, genai.BackendGeminiAPI, c.ClientConfig().Backend)
	assert.Equal(t, gemini.DummyAPIKey, c.ClientConfig().APIKey)
	r, err := c.Models.GenerateContent(t.Context(), "gemini-test", genai.Text("hi"), nil)
	require.NoError(t, err)
	assert.Equal(t, "gemini-test", r.ModelVersion)
}
