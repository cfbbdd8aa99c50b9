package wire_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/messages"
)

// event is one server-sent event as a client reads it.
type event struct {
	Name string
	Data map[string]any
}

// body is a request body; helpers fill model and max_tokens.
type body map[string]any

func userText(s string) map[string]any { return map[string]any{"role": "user", "content": s} }

func request(stream bool, msgs ...map[string]any) body {
	list := make([]any, len(msgs))
	for i, m := range msgs {
		list[i] = m
	}
	return body{"model": "claude-test", "max_tokens": 1000, "stream": stream, "messages": list}
}

// post sends b (JSON, or raw bytes) to the server's /v1/messages.
func post(t testing.TB, url string, b any) *http.Response {
	t.Helper()
	var raw []byte
	switch v := b.(type) {
	case []byte:
		raw = v
	default:
		var err error
		raw, err = json.Marshal(v)
		require.NoError(t, err)
	}
	resp, err := http.Post(url+"/v1/messages", "application/json", bytes.NewReader(raw))
	require.NoError(t, err)
	return resp
}

// readEvents reads a stream to its end; err is the read error that ended
// it (nil at a clean end).
func readEvents(t testing.TB, r io.Reader) ([]event, error) {
	t.Helper()
	var out []event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &data), line)
			require.Equal(t, name, data["type"], "event name and data type agree")
			out = append(out, event{Name: name, Data: data})
		}
	}
	return out, sc.Err()
}

// decodeJSON reads a JSON body.
func decodeJSON(t testing.TB, resp *http.Response) map[string]any {
	t.Helper()
	defer resp.Body.Close()
	var v map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&v))
	return v
}

// serve starts a Messages API server (the core's tests speak it) playing
// script.
func serve(t *testing.T, opts wire.Options, script ...fakemodel.Step) (*wire.Server, *fakemodel.Model) {
	t.Helper()
	model := &fakemodel.Model{Script: script, Window: 200_000, KeepMessages: true}
	srv := wire.NewServer(model, opts, messages.API{})
	t.Cleanup(srv.Close)
	return srv, model
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
