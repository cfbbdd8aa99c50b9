package responses_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/responses"
	"github.com/loopsim/loopsim/loop"
)

// answers is a loop.Model that plays the given answers in turn: their
// blocks, then their response or failure; it keeps each request.
type answers struct {
	mu       sync.Mutex
	next     []wire.Answer
	requests []loop.Request
}

// Stream implements loop.Model.
func (m *answers) Stream(_ context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	m.mu.Lock()
	a := m.next[0]
	m.next = m.next[1:]
	m.requests = append(m.requests, req)
	m.mu.Unlock()
	for _, b := range a.Blocks {
		yield(b)
	}
	if a.Err != nil {
		return loop.Response{}, a.Err
	}
	return a.Response, nil
}

func (m *answers) seen() []loop.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]loop.Request(nil), m.requests...)
}

// serve starts the fake server speaking the Responses API, answering
// with answers, and an SDK client pointed at it with retries off.
func serve(t *testing.T, as ...wire.Answer) (openai.Client, *answers, *wire.Server) {
	t.Helper()
	m := &answers{next: as}
	srv := wire.NewServer(m, wire.Options{Models: []loop.ModelInfo{{Name: "gpt-test", ContextWindow: 400_000, MaxOutputTokens: 128_000}}}, responses.API{})
	t.Cleanup(srv.Close)
	c := openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("loopsim-test"), option.WithMaxRetries(0))
	return c, m, srv
}

// reply is a successful answer.
func reply(stop loop.StopReason, usage loop.Usage, blocks ...loop.Block) wire.Answer {
	return wire.Answer{Outcome: wire.OutcomeReply, Blocks: blocks, Response: loop.Response{StopReason: stop, Usage: usage}}
}

// fail is an error answer after blocks.
func fail(e *loop.RequestError, blocks ...loop.Block) wire.Answer {
	return wire.Answer{Outcome: wire.OutcomeError, Err: e, Blocks: blocks}
}

func text(s string) loop.Block { return loop.Block{Type: loop.BlockText, Text: s} }

func thinking(s string) loop.Block { return loop.Block{Type: loop.BlockThinking, Text: s} }

func toolUse(id, name, input string) loop.Block {
	return loop.Block{Type: loop.BlockToolUse, ID: id, Name: name, Input: input}
}

// mustJSON is v as JSON.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func newRequest(path string) *http.Request {
	r, _ := http.NewRequest(http.MethodPost, "http://x"+path, nil)
	return r
}
