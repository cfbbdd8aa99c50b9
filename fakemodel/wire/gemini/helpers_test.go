package gemini_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/gemini"
	"github.com/loopsim/loopsim/loop"
)

// api is the API under test.
var api = gemini.API{}

// models are the models the tests' requests are checked against.
var models = []loop.ModelInfo{{Name: "gemini-test", ContextWindow: 1_000_000, MaxOutputTokens: 8192}}

// generate is the generateContent route for the test model.
var generate = wire.Route{Endpoint: wire.EndpointGenerate, Model: "gemini-test"}

// decode decodes a body (a JSON value, or raw bytes) for rt.
func decode(t testing.TB, rt wire.Route, b any) (*wire.Decoded, error) {
	t.Helper()
	raw, ok := b.([]byte)
	if !ok {
		var err error
		raw, err = json.Marshal(b)
		require.NoError(t, err)
	}
	return api.Decode(rt, raw, wire.DecodeOptions{Models: models})
}

// obj is a JSON object of a request.
type obj = map[string]any

// arr is a JSON list of a request.
type arr = []any

func text(s string) obj { return obj{"text": s} }

func user(parts ...any) obj  { return obj{"role": "user", "parts": arr(parts)} }
func model(parts ...any) obj { return obj{"role": "model", "parts": arr(parts)} }

func call(id, name string, args obj) obj {
	fc := obj{"name": name, "args": args}
	if id != "" {
		fc["id"] = id
	}
	return obj{"functionCall": fc}
}

func result(id, name string, response obj) obj {
	fr := obj{"name": name, "response": response}
	if id != "" {
		fr["id"] = id
	}
	return obj{"functionResponse": fr}
}

func request(contents ...any) obj { return obj{"contents": arr(contents)} }

// serve starts a server that answers every request as the core would
// answer it with ans: Decode's refusal, the error before a stream, the
// stream, or the reply. A drop closes the connection after the blocks.
func serve(t testing.TB, ans wire.Answer) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt, ok := api.Route(r)
		if !ok {
			writeError(w, api.Error(&wire.Failure{Status: http.StatusNotFound, Message: "Not found: " + r.URL.Path}))
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		d, err := api.Decode(rt, body, wire.DecodeOptions{Models: models})
		if err != nil {
			rj, _ := err.(*wire.Rejection)
			writeError(w, api.Error(&wire.Failure{Rejection: rj}))
			return
		}
		if rt.Endpoint == wire.EndpointCount {
			writeJSON(w, http.StatusOK, api.Count(d))
			return
		}
		a := ans
		streamsFirst := d.Stream && a.Err != nil && (a.Err.Kind == loop.KindStream || len(a.Blocks) > 0)
		switch {
		case a.Outcome == wire.OutcomeError && !streamsFirst:
			writeError(w, api.Error(&wire.Failure{Err: a.Err}))
		case a.Outcome == wire.OutcomeDrop && (len(a.Blocks) == 0 || !d.Stream):
			panic(http.ErrAbortHandler)
		case d.Stream:
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			s := wire.NewStream(w, r, 0)
			api.Stream(s, d, &a)
			s.Flush()
			if a.Outcome == wire.OutcomeDrop {
				panic(http.ErrAbortHandler)
			}
		default:
			writeJSON(w, http.StatusOK, api.Reply(d, &a))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func writeError(w http.ResponseWriter, e wire.ErrorAnswer) {
	for k, vs := range e.Header {
		w.Header()[k] = vs
	}
	writeJSON(w, e.Status, e.Body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// client is the official genai client pointed at srv, its retries off.
func client(t testing.TB, srv *httptest.Server) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(t.Context(), &genai.ClientConfig{
		APIKey:      "loopsim-test",
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  srv.Client(),
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	require.NoError(t, err)
	return c
}

// roundTrip is v as a client decodes its JSON: maps, lists, float64s.
func roundTrip(t testing.TB, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(data, &out))
	return out
}
