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
