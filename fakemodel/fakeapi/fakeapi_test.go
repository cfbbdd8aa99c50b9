package fakeapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
)

func TestAPIsHaveDistinctNames(t *testing.T) {
	seen := map[string]bool{}
	for _, api := range fakeapi.APIs() {
		require.NotEmpty(t, api.Name())
		assert.False(t, seen[api.Name()], "two APIs named %q", api.Name())
		seen[api.Name()] = true
	}
	assert.True(t, seen["messages"], "the Messages API is served")
}

func TestServesTheMessagesAPIOnTheBaseURL(t *testing.T) {
	srv := fakeapi.NewServer(&fakemodel.Model{Script: []fakemodel.Step{{Text: "ok"}}}, wire.Options{})
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/v1/messages", "application/json",
		strings.NewReader(`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"go"}]}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	rec := srv.Requests()
	require.Len(t, rec, 1)
	assert.Equal(t, "messages", rec[0].API)
	assert.Equal(t, "M:text", rec[0].Label())
}

func TestClientEnvPointsEveryAPIAtTheServer(t *testing.T) {
	env := fakeapi.ClientEnv("http://127.0.0.1:1")
	assert.Contains(t, env, "ANTHROPIC_BASE_URL=http://127.0.0.1:1")
	names := map[string]bool{}
	for _, kv := range env {
		name, _, ok := strings.Cut(kv, "=")
		require.True(t, ok, kv)
		assert.False(t, names[name], "%s twice", name)
		names[name] = true
	}
	for _, api := range fakeapi.APIs() {
		ce, ok := api.(wire.ClientEnv)
		if !ok {
			// an API whose clients take the address only in code (an SDK
			// option) prints nothing; docs/wire.md gives its setting
			t.Logf("the %s API sets no variables (no wire.ClientEnv)", api.Name())
			continue
		}
		assert.NotEmpty(t, ce.ClientEnv("http://127.0.0.1:1"), api.Name())
	}
}
