package adapter

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolveFillsInTheDefaults(t *testing.T) {
	s := Setup{Pkg: "sdkmodel/x", APIKey: "k", DefaultBaseURL: "https://api.example", DefaultTimeout: time.Minute}
	got, err := s.Resolve()
	require.NoError(t, err)
	assert.Equal(t, "https://api.example", got.BaseURL)
	assert.Equal(t, time.Minute, got.Timeout)
	require.NotNil(t, got.HTTPClient)
	assert.Zero(t, got.HTTPClient.Timeout, "streams may last long: no timeout")

	hc := &http.Client{}
	s.BaseURL, s.HTTPClient, s.Timeout = "http://127.0.0.1:1", hc, time.Second
	got, err = s.Resolve()
	require.NoError(t, err)
	assert.Equal(t, Settings{BaseURL: "http://127.0.0.1:1", HTTPClient: hc, Timeout: time.Second}, got)
}

func TestResolveRefusesABadSetup(t *testing.T) {
	_, err := Setup{Pkg: "sdkmodel/x"}.Resolve()
	assert.EqualError(t, err, "sdkmodel/x: Config.APIKey is empty (the Model reads no environment; pass the key)")
	_, err = Setup{Pkg: "sdkmodel/x", APIKey: "k", Timeout: -time.Second}.Resolve()
	assert.EqualError(t, err, "sdkmodel/x: Config.NonStreamingTimeout -1s is negative")
}
