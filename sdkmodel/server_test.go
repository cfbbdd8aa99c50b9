package sdkmodel_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel"
)

// event is one server-sent event.
type event struct {
	name string
	data string
}

// answer is what the test server does with one request.
type answer func(w http.ResponseWriter, r *http.Request)

// recorded is one request the test server received.
type recorded struct {
	path   string
	header http.Header
	body   map[string]any
}

// server is an httptest server that answers requests with a queue of
// answers, recording each request.
type server struct {
	*httptest.Server
	t *testing.T

	mu       sync.Mutex
	answers  []answer
	requests []recorded
}

func newServer(t *testing.T, answers ...answer) *server {
	t.Helper()
	s := &server{t: t, answers: answers}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, recorded{path: r.URL.Path, header: r.Header.Clone(), body: body})
	if len(s.answers) == 0 {
		s.mu.Unlock()
		writeError(w, 500, "api_error", "test server: no answer left")
		return
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	s.mu.Unlock()
	a(w, r)
}

func (s *server) received() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.requests...)
}

// model is a Model pointed at the server.
func (s *server) model(t *testing.T, cfg sdkmodel.Config) *sdkmodel.Model {
	t.Helper()
	if cfg.BaseURL == "" {
		cfg.BaseURL = s.URL
	}
	if cfg.APIKey == "" {
		cfg.APIKey = "test-key"
	}
	m, err := sdkmodel.New(cfg)
	require.NoError(t, err)
	return m
}

// writeEvents writes events as a text/event-stream body.
func writeEvents(w http.ResponseWriter, events []event) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, e := range events {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, e.data)
	}
}

// streamAnswer streams events.
func streamAnswer(events ...event) answer {
	return func(w http.ResponseWriter, _ *http.Request) { writeEvents(w, events) }
}

// dropAnswer streams events, then cuts the connection without ending the
// response.
func dropAnswer(events ...event) answer {
	return func(w http.ResponseWriter, _ *http.Request) {
		writeEvents(w, events)
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}
}

// jsonAnswer writes a JSON body with a status and headers.
func jsonAnswer(status int, body string, headers ...string) answer {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func errorBody(typ, msg string) string {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
	return string(b)
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	jsonAnswer(status, errorBody(typ, msg))(w, nil)
}

// The events of a stream, built from a few pieces.

func messageStart(input, cacheRead, cacheCreation int) event {
	return event{"message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1,"cache_read_input_tokens":%d,"cache_creation_input_tokens":%d}}}`, input, cacheRead, cacheCreation)}
}

func textBlock(index int, parts ...string) []event {
	evs := []event{{"content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, index)}}
	for _, p := range parts {
		evs = append(evs, event{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, index, quote(p))})
	}
	return append(evs, blockStop(index))
}

func thinkingBlock(index int, text, signature string) []event {
	return []event{
		{"content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"thinking","thinking":"","signature":""}}`, index)},
		{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"thinking_delta","thinking":%s}}`, index, quote(text))},
		{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"signature_delta","signature":%s}}`, index, quote(signature))},
		blockStop(index),
	}
}

func toolBlock(index int, id, name string, parts ...string) []event {
	evs := []event{{"content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%s,"name":%s,"input":{}}}`, index, quote(id), quote(name))}}
	for _, p := range parts {
		evs = append(evs, event{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, index, quote(p))})
	}
	return append(evs, blockStop(index))
}

func blockStop(index int) event {
	return event{"content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index)}
}

func messageEnd(stop loop.StopReason, output int) []event {
	return []event{
		{"message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, output)},
		{"message_stop", `{"type":"message_stop"}`},
	}
}

func errorEvent(typ, msg string) event { return event{"error", errorBody(typ, msg)} }

func ping() event { return event{"ping", `{"type":"ping"}`} }

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// concat joins event lists.
func concat(parts ...any) []event {
	var out []event
	for _, p := range parts {
		switch v := p.(type) {
		case event:
			out = append(out, v)
		case []event:
			out = append(out, v...)
		default:
			panic(fmt.Sprintf("concat: %T", p))
		}
	}
	return out
}

// textReply streams a plain text reply.
func textReply(text string, input, output int) answer {
	return streamAnswer(concat(messageStart(input, 0, 0), textBlock(0, text), messageEnd(loop.StopEndTurn, output))...)
}

// collect calls Stream and gathers the blocks it yields.
func collect(t *testing.T, m loop.Model, req loop.Request) ([]loop.Block, loop.Response, error) {
	t.Helper()
	var blocks []loop.Block
	resp, err := m.Stream(t.Context(), req, func(b loop.Block) { blocks = append(blocks, b) })
	return blocks, resp, err
}

// mainRequest is a small main request.
func mainRequest(msgs ...loop.Message) loop.Request {
	if len(msgs) == 0 {
		msgs = []loop.Message{loop.UserText("hello")}
	}
	return loop.Request{Purpose: loop.PurposeMain, Model: "claude-test", MaxTokens: 1000, Messages: msgs,
		InputTokens: loop.SumTokens(msgs), Tools: []string{"Bash"}}
}

// jsonPath reads a value out of a decoded JSON body: keys and indexes
// separated by dots.
func jsonPath(t *testing.T, v any, path string) any {
	t.Helper()
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			var i int
			_, err := fmt.Sscanf(k, "%d", &i)
			require.NoError(t, err, "path %s", path)
			require.Less(t, i, len(x), "path %s", path)
			v = x[i]
		default:
			require.FailNowf(t, "not a map or a list", "path %s: %T at %q", path, v, k)
		}
	}
	return v
}

// writeEvent writes one event and flushes it.
func writeEvent(w http.ResponseWriter, e event) {
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, e.data)
	w.(http.Flusher).Flush()
}

// slowTimer is the pause of a slow reply: long enough for looptest's
// cancellation to arrive first, short against its timeout.
func slowTimer() <-chan time.Time { return time.After(20 * time.Millisecond) }
