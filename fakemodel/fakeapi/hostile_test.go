package fakeapi_test

import (
	"bufio"
	"bytes"
	"encoding/json"
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
	"go.uber.org/goleak"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
)

// hostileBodies are bodies no API takes: not JSON, JSON of the wrong
// shape or types, nested past any decoder's depth, text JSON does not
// allow.
var hostileBodies = []struct{ name, body string }{
	{"empty", ""},
	{"not JSON", "{"},
	{"truncated", `{"model":"m","messages":[{"role":"user","content":"go"`},
	{"null", "null"},
	{"a number", "123"},
	{"a string", `"hello"`},
	{"a list", "[1,2]"},
	{"wrong types", `{"model":3,"messages":"x","max_tokens":"y","stream":"z","contents":7,"input":false}`},
	{"null fields", `{"model":null,"messages":[null],"contents":[null],"input":[null]}`},
	{"nested lists", strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)},
	{"nested objects", strings.Repeat(`{"a":`, 20_000) + "1" + strings.Repeat("}", 20_000)},
	{"invalid UTF-8", "{\"model\":\"m\xff\"}"},
	{"lone surrogate", `{"model":"\ud800"}`},
	{"trailing garbage", `{} {}`},
}

// Hostile bodies get the API's 4xx with a JSON body, never a 5xx, and
// the server answers the next request as if nothing happened.
func TestHostileBodiesGetA4xx(t *testing.T) {
	eachAPI(t, func(t *testing.T, api wire.API, s sample) {
		defer goleak.VerifyNone(t, lingering)
		srv := wire.NewServer(&fakemodel.Model{Script: []fakemodel.Step{reply}}, wire.Options{}, api)
		defer srv.Close()
		c := client()
		defer c.CloseIdleConnections()
		for _, h := range hostileBodies {
			name := h.name
			resp, err := c.Post(srv.URL+s.path, "application/json", strings.NewReader(h.body))
			require.NoError(t, err, name)
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err, name)
			assert.True(t, resp.StatusCode >= 400 && resp.StatusCode < 500, "%s: status %d", name, resp.StatusCode)
			assert.True(t, json.Valid(b), "%s: a JSON body: %.200q", name, b)
		}
		assert.NoError(t, stream(t.Context(), c, srv.URL, s), "the server still answers")
		for _, r := range srv.Requests()[:len(hostileBodies)] {
			assert.Equal(t, "rejected", r.Answer, "record %d", r.Seq)
		}
	})
}

// A body over the limit gets the API's 413, read or not; the limit is
// Options.MaxBodyBytes.
func TestHugeBodiesGet413(t *testing.T) {
	eachAPI(t, func(t *testing.T, api wire.API, s sample) {
		defer goleak.VerifyNone(t, lingering)
		srv := wire.NewServer(&fakemodel.Model{Script: []fakemodel.Step{reply}}, wire.Options{MaxBodyBytes: 1 << 16}, api)
		defer srv.Close()
		c := client()
		defer c.CloseIdleConnections()
		huge := strings.Replace(s.body, `"go"`, `"`+strings.Repeat("x", 1<<17)+`"`, 1)
		require.Greater(t, len(huge), 1<<17, "the sample carries the word go")
		resp, err := c.Post(srv.URL+s.path, "application/json", strings.NewReader(huge))
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
		assert.True(t, json.Valid(b), "a JSON body: %.200q", b)
		require.Len(t, srv.Requests(), 1)
		assert.Equal(t, "413", srv.Requests()[0].Answer)
	})
}

// Slow and vanishing clients (a body trickled byte by byte, a client gone
// in the middle of its body, headers that never end) leave no goroutine
// behind and never get a 5xx.
func TestSlowAndVanishingClients(t *testing.T) {
	eachAPI(t, func(t *testing.T, api wire.API, s sample) {
		defer goleak.VerifyNone(t, lingering)
		srv := wire.NewServer(&fakemodel.Model{Script: []fakemodel.Step{reply}},
			wire.Options{ReadTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond}, api)
		addr := strings.TrimPrefix(srv.URL, "http://")
		head := "POST " + s.path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(s.body)) + "\r\n\r\n"

		// trickled within the read timeout: answered
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		_, err = io.WriteString(conn, head)
		require.NoError(t, err)
		for i := 0; i < len(s.body); i += len(s.body)/5 + 1 {
			_, err = io.WriteString(conn, s.body[i:min(i+len(s.body)/5+1, len(s.body))])
			require.NoError(t, err)
			time.Sleep(10 * time.Millisecond)
		}
		require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "a slow but steady client is answered")
		conn.Close()

		// gone in the middle of the body (half-closed); stalled in the
		// body; stalled in the headers
		for _, c := range []struct {
			raw       string
			halfClose bool
		}{{head + s.body[:len(s.body)/2], true}, {head + s.body[:len(s.body)/2], false}, {head[:len(head)/2], false}} {
			conn, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			_, err = io.WriteString(conn, c.raw)
			require.NoError(t, err)
			if c.halfClose {
				require.NoError(t, conn.(*net.TCPConn).CloseWrite())
			}
			require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
			b, err := io.ReadAll(conn)
			var ne net.Error
			assert.False(t, errors.As(err, &ne) && ne.Timeout(), "the server closes a stalled connection")
			assert.NotContains(t, string(firstLine(b)), " 5", "never a 5xx: %q", firstLine(b))
			conn.Close()
		}
		srv.Close()
	})
}

func firstLine(b []byte) []byte {
	line, _, _ := bytes.Cut(b, []byte("\r\n"))
	return line
}
