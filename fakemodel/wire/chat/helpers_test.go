package chat_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/chat"
	"github.com/loopsim/loopsim/loop"
)

// body is a request body.
type body map[string]any

func user(s string) map[string]any      { return map[string]any{"role": "user", "content": s} }
func system(s string) map[string]any    { return map[string]any{"role": "system", "content": s} }
func assistant(s string) map[string]any { return map[string]any{"role": "assistant", "content": s} }
func toolMsg(id, s string) map[string]any {
	return map[string]any{"role": "tool", "tool_call_id": id, "content": s}
}

// calls is an assistant message with tool calls (name Read, arguments
// {"p":ID}), without content.
func calls(ids ...string) map[string]any {
	list := make([]any, len(ids))
	for i, id := range ids {
		list[i] = map[string]any{"id": id, "type": "function",
			"function": map[string]any{"name": "Read", "arguments": `{"p":"` + id + `"}`}}
	}
	return map[string]any{"role": "assistant", "content": nil, "tool_calls": list}
}

func request(msgs ...map[string]any) body {
	list := make([]any, len(msgs))
	for i, m := range msgs {
		list[i] = m
	}
	return body{"model": "gpt-test", "messages": list}
}

// with returns b with key set to v.
func (b body) with(key string, v any) body {
	out := body{}
	for k, x := range b {
		out[k] = x
	}
	out[key] = v
	return out
}

// without returns b without key.
func (b body) without(key string) body {
	out := body{}
	for k, x := range b {
		if k != key {
			out[k] = x
		}
	}
	return out
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	if raw, ok := v.([]byte); ok {
		return raw
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// models are the models the tests check output caps against.
var models = []loop.ModelInfo{{Name: "gpt-test", ContextWindow: 128_000, MaxOutputTokens: 16_384}}

// decode decodes b as the server does.
func decode(t testing.TB, b any) (*wire.Decoded, error) {
	t.Helper()
	return chat.API{}.Decode(wire.Route{Endpoint: wire.EndpointGenerate}, mustJSON(t, b), wire.DecodeOptions{Models: models})
}

// streamed writes a's stream for d and returns what the client reads.
func streamed(t testing.TB, d *wire.Decoded, a *wire.Answer) []byte {
	t.Helper()
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, chat.Path, nil)
	s := wire.NewStream(rec, r, 0)
	chat.API{}.Stream(s, d, a)
	s.Flush()
	require.NoError(t, s.Err())
	return rec.Body.Bytes()
}

// sdkStream parses a stream as openai-go does, accumulating its chunks;
// err is the error the stream ended with.
func sdkStream(raw []byte) (openai.ChatCompletionAccumulator, []openai.ChatCompletionChunk, error) {
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(raw))}
	s := ssestream.NewStream[openai.ChatCompletionChunk](ssestream.NewDecoder(resp), nil)
	var acc openai.ChatCompletionAccumulator
	var chunks []openai.ChatCompletionChunk
	for s.Next() {
		c := s.Current()
		if !acc.AddChunk(c) {
			return acc, chunks, errors.New("the accumulator refused a chunk")
		}
		chunks = append(chunks, c)
	}
	return acc, chunks, s.Err()
}

// serve starts a server speaking only this API, answering with steps.
func serve(t *testing.T, steps ...fakemodel.Step) (*wire.Server, *fakemodel.Model) {
	t.Helper()
	model := &fakemodel.Model{Script: steps, Window: 200_000, KeepMessages: true}
	srv := wire.NewServer(model, wire.Options{Models: models}, chat.API{})
	t.Cleanup(srv.Close)
	return srv, model
}

// client is the official SDK pointed at srv, retries off.
func client(srv *wire.Server) openai.Client {
	return openai.NewClient(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey("test"), option.WithMaxRetries(0))
}

// params is a small request as the SDK sends it.
func params() openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{Model: "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("go")}}
}

func lines(raw []byte) []string { return strings.Split(strings.TrimSpace(string(raw)), "\n\n") }
