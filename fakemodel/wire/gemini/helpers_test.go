package gemini_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/loopsim/loopsim/fakemodel/fakeapi"
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

// answerModel is a model that plays one answer to every request: its
// blocks, then its response or its failure.
type answerModel struct{ ans wire.Answer }

// Stream implements loop.Model.
func (m answerModel) Stream(ctx context.Context, _ loop.Request, yield func(loop.Block)) (loop.Response, error) {
	for _, b := range m.ans.Blocks {
		yield(b)
	}
	if m.ans.Outcome == wire.OutcomeReply {
		return m.ans.Response, nil
	}
	return loop.Response{}, m.ans.Err
}

// serve starts the core's server (every API on one base URL) answering
// every request with ans.
func serve(t testing.TB, ans wire.Answer) *wire.Server {
	t.Helper()
	srv := fakeapi.NewServer(answerModel{ans}, wire.Options{Models: models})
	t.Cleanup(srv.Close)
	return srv
}

// client is the official genai client pointed at srv, its retries off.
func client(t testing.TB, srv *wire.Server) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(t.Context(), &genai.ClientConfig{
		APIKey:      "loopsim-test",
		Backend:     genai.BackendGeminiAPI,
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
