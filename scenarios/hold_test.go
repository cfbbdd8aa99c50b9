package scenarios

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
)

// TestHoldOnTheWire: a step's hold_ms holds its request on the wire with
// nothing sent, not even the headers: a client that gives up waiting
// finds its request gone, and its retry is answered.
func TestHoldOnTheWire(t *testing.T) {
	s, err := Parse("hold.yaml", []byte(`name: hold
description: the first request is held, the second answered
profile: claude-code
conversation:
  - {role: user, text: "Say hello."}
answers:
  main:
    - {text: Late., hold_ms: 3600000}
    - {text: Hello., repeat: forever}
expect: {terminal: completed, transitions: []}
`))
	require.NoError(t, err)
	srv, _, err := s.Server(wire.Options{})
	require.NoError(t, err)
	defer srv.Close()
	body := `{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"Say hello."}]}`
	client := &http.Client{Timeout: 300 * time.Millisecond}
	post := func() (*http.Response, error) {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("content-type", "application/json")
		req.Header.Set("x-api-key", "k")
		req.Header.Set("anthropic-version", "2023-06-01")
		return client.Do(req)
	}
	_, err = post()
	require.Error(t, err, "no headers before the client's timeout")
	resp, err := post()
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	require.Eventually(t, func() bool { return len(srv.Requests()) == 2 }, 5*time.Second, 10*time.Millisecond)
	assert.Equal(t, []string{"M:gone", "M:text"}, wire.Labels(srv.Requests()))
}
