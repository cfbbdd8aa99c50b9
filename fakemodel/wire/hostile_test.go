package wire_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
)

// rawRequest sends raw bytes on a new connection to srv, then (when
// halfClose) closes its writing side; it returns the connection.
func rawRequest(t *testing.T, srv *wire.Server, raw string, halfClose bool) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	_, err = io.WriteString(c, raw)
	require.NoError(t, err)
	if halfClose {
		require.NoError(t, c.(*net.TCPConn).CloseWrite())
	}
	return c
}

// readResponse reads one response from c, failing after d.
func readResponse(t *testing.T, c net.Conn, d time.Duration) (*http.Response, string) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(d)))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err, "a response before the deadline")
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	return resp, string(b)
}

// A body that cannot be read (shorter than its length on a half-closed
// socket, a broken chunked encoding) gets the API's 400 saying so, and
// a record: not an empty 200.
func TestABodyThatFailsToReadGetsA400(t *testing.T) {
	for _, c := range []struct{ name, raw string }{
		{"short body, half-closed", "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\":"},
		{"bad chunked encoding", "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, model := serve(t, wire.Options{}, fakemodel.Step{Text: "never"})
			conn := rawRequest(t, srv, c.raw, true)
			resp, body := readResponse(t, conn, 5*time.Second)
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
			assert.Contains(t, body, `"invalid_request_error"`)
			assert.Contains(t, body, "could not be read")
			assert.Equal(t, "req_loopsim_000001", resp.Header.Get("request-id"))
			rec := srv.Requests()
			require.Len(t, rec, 1)
			assert.Equal(t, "?:rejected", rec[0].Label())
			assert.Equal(t, 400, rec[0].Status)
			assert.Contains(t, rec[0].Error, "could not be read")
			assert.Empty(t, model.Requests, "no step is used")
		})
	}
}

// A client that stalls inside its request body is answered 400 once
// ReadTimeout passes, and its connection closed.
func TestAStalledBodyIsCutAfterTheReadTimeout(t *testing.T) {
	srv, _ := serve(t, wire.Options{ReadTimeout: 200 * time.Millisecond})
	conn := rawRequest(t, srv, "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"model\":", false)
	began := time.Now()
	resp, body := readResponse(t, conn, 5*time.Second)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, body, "timeout")
	assert.Less(t, time.Since(began), 4*time.Second)
	assertClosed(t, conn)
}

// Stalled headers, and a keep-alive connection left idle after a good
// request, are closed: nothing holds a connection for ever.
func TestStalledConnectionsAreClosed(t *testing.T) {
	t.Run("headers", func(t *testing.T) {
		srv, _ := serve(t, wire.Options{ReadTimeout: 200 * time.Millisecond})
		assertClosed(t, rawRequest(t, srv, "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Len", false))
	})
	t.Run("idle keep-alive", func(t *testing.T) {
		srv, _ := serve(t, wire.Options{IdleTimeout: 200 * time.Millisecond}, fakemodel.Step{Text: "ok"})
		raw := mustJSON(t, request(false, userText("go")))
		conn := rawRequest(t, srv, "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "+
			strconv.Itoa(len(raw))+"\r\n\r\n"+raw, false)
		resp, _ := readResponse(t, conn, 5*time.Second)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assertClosed(t, conn)
	})
}

// assertClosed waits (at most 5 s) for the server to close c: a read
// that ends (EOF or a reset), not one that times out.
func assertClosed(t *testing.T, c net.Conn) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("the connection is still open after 5 s")
	}
}
