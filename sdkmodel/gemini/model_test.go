package gemini_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/gemini"
)

// received is one request a capture server got.
type received struct {
	path, query string
	header      http.Header
	body        map[string]any
}

// capture is a server that records each request and answers with the
// next of its answers (the last one again when they run out): a body
// whose first line starts "data:" is sent as a stream, any other as
// JSON.
type capture struct {
	mu      sync.Mutex
	got     []received
	answers []string
	url     string
}

func newCapture(t *testing.T, answers ...string) *capture {
	c := &capture{answers: answers}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		c.mu.Lock()
		c.got = append(c.got, received{path: r.URL.Path, query: r.URL.RawQuery, header: r.Header.Clone(), body: body})
		ans := c.answers[min(len(c.got), len(c.answers))-1]
		c.mu.Unlock()
		if strings.HasPrefix(ans, "data:") {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		_, _ = io.WriteString(w, ans)
	}))
	t.Cleanup(srv.Close)
	c.url = srv.URL
	return c
}

func (c *capture) requests() []received {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]received(nil), c.got...)
}

// chunk is one stream event carrying parts (JSON), and a finish reason
// when not empty.
func chunk(parts, finish string) string {
	f := ""
	if finish != "" {
		f = `,"finishReason":"` + finish + `"`
	}
	return `data: {"candidates":[{"content":{"role":"model","parts":[` + parts + `]}` + f + `}],` +
		`"usageMetadata":{"promptTokenCount":120,"cachedContentTokenCount":100,"candidatesTokenCount":7,"thoughtsTokenCount":3,"totalTokenCount":130}}` + "\n\n"
}

// collect runs one call and returns the blocks and the response.
func collect(t *testing.T, m *gemini.Model, req loop.Request) ([]loop.Block, loop.Response, error) {
	t.Helper()
	var blocks []loop.Block
	resp, err := m.Stream(t.Context(), req, func(b loop.Block) { blocks = append(blocks, b) })
	return blocks, resp, err
}

// conversation is a request with a tool turn: a thought, a call, an
// error result and an ordinary one.
func conversation() loop.Request {
	return loop.Request{Purpose: loop.PurposeMain, Model: "gemini-2.5-pro", MaxTokens: 8192, InputTokens: 321, Tools: []string{"Read", "Bash"},
		Messages: []loop.Message{
			loop.UserText("fix it"),
			{Role: loop.RoleAssistant, Blocks: []loop.Block{{Type: loop.BlockThinking, Text: "look first"}, {Type: loop.BlockText, Text: "Reading."},
				{Type: loop.BlockToolUse, ID: "c1", Name: "Read", Input: `{"path":"a.go"}`},
				{Type: loop.BlockToolUse, ID: "c2", Name: "Bash", Input: `{"cmd":"go te`}}},
			{Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockToolResult, ToolUseID: "c1", Text: "package a"},
				{Type: loop.BlockToolResult, ToolUseID: "c2", Text: "exit 1", IsError: true}}},
		}}
}

// A request travels as the API takes it: the path and method for a
// stream or not, the key header, the loop's count, contents with roles
// and parts, the tools, the system instruction and the cap.
func TestRequestAsSent(t *testing.T) {
	c := newCapture(t, chunk(`{"text":"ok"}`, "STOP"), `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}]}`)
	m, err := gemini.New(gemini.Config{BaseURL: c.url, APIKey: "k", System: "Be brief.", SendInputTokens: true,
		Tools: map[string]*genai.FunctionDeclaration{"Read": {Description: "reads a file"}}})
	require.NoError(t, err)
	_, _, err = collect(t, m, conversation())
	require.NoError(t, err)
	req := conversation()
	req.NonStreaming = true
	_, _, err = collect(t, m, req)
	require.NoError(t, err)

	got := c.requests()
	require.Len(t, got, 2)
	assert.Equal(t, "/v1beta/models/gemini-2.5-pro:streamGenerateContent", got[0].path)
	assert.Equal(t, "alt=sse", got[0].query)
	assert.Equal(t, "/v1beta/models/gemini-2.5-pro:generateContent", got[1].path)
	assert.Equal(t, "k", got[0].header.Get("x-goog-api-key"))
	assert.Equal(t, "321", got[0].header.Get(gemini.InputTokensHeader))
	want := map[string]any{
		"contents": []any{
			map[string]any{"role": "user", "parts": []any{map[string]any{"text": "fix it"}}},
			map[string]any{"role": "model", "parts": []any{
				map[string]any{"text": "look first", "thought": true},
				map[string]any{"text": "Reading."},
				map[string]any{"functionCall": map[string]any{"id": "c1", "name": "Read", "args": map[string]any{"path": "a.go"}}},
				map[string]any{"functionCall": map[string]any{"id": "c2", "name": "Bash"}},
			}},
			map[string]any{"role": "user", "parts": []any{
				map[string]any{"functionResponse": map[string]any{"id": "c1", "name": "Read", "response": map[string]any{"output": "package a"}}},
				map[string]any{"functionResponse": map[string]any{"id": "c2", "name": "Bash", "response": map[string]any{"error": "exit 1"}}},
			}},
		},
		"systemInstruction": map[string]any{"role": "user", "parts": []any{map[string]any{"text": "Be brief."}}},
		"tools": []any{map[string]any{"functionDeclarations": []any{
			map[string]any{"name": "Read", "description": "reads a file"}, map[string]any{"name": "Bash"}}}},
		"generationConfig": map[string]any{"maxOutputTokens": float64(8192)},
	}
	assert.Equal(t, want, got[0].body)
	assert.Equal(t, want, got[1].body)
}

// A request the loop cannot put on the wire fails before it is sent.
func TestRequestRefusedBeforeSending(t *testing.T) {
	c := newCapture(t, chunk(`{"text":"ok"}`, "STOP"))
	m, err := gemini.New(gemini.Config{BaseURL: c.url, APIKey: "k"})
	require.NoError(t, err)
	req := conversation()
	req.Messages[2].Blocks[0].ToolUseID = "nowhere"
	_, _, err = collect(t, m, req)
	assert.ErrorContains(t, err, `tool_result for "nowhere" answers no tool_use`)
	_, _, err = collect(t, m, loop.Request{MaxTokens: 10, Messages: []loop.Message{loop.UserText("hi")}})
	assert.ErrorContains(t, err, "has no model")
	assert.Empty(t, c.requests())

	_, err = gemini.New(gemini.Config{})
	assert.ErrorContains(t, err, "APIKey is empty")
}

// A run of text parts is one block, a run of thoughts another; a call
// is a block at once, with an id made up when it has none; the finish
// reason and usage are read in the loop's terms.
func TestAnswersReadAsBlocks(t *testing.T) {
	c := newCapture(t,
		chunk(`{"text":"let me ","thought":true}`, "")+chunk(`{"text":"see","thought":true}`, "")+
			chunk(`{"text":"Reading "}`, "")+chunk(`{"text":"both."}`, "")+
			chunk(`{"functionCall":{"name":"Read","args":{"path":"a.go"}}},{"functionCall":{"id":"x","name":"Read"}}`, "")+
			chunk(`{"text":""}`, "STOP"),
		chunk(`{"text":"cut at the cap"}`, "MAX_TOKENS"),
		chunk(`{"text":"I'll use a tool."}`, "MALFORMED_FUNCTION_CALL"),
		chunk(`{"functionCall":{"name":"Bash"}}`, "STOP"),
	)
	m, err := gemini.New(gemini.Config{BaseURL: c.url, APIKey: "k"})
	require.NoError(t, err)
	req := loop.Request{Model: "m", MaxTokens: 100, Messages: []loop.Message{loop.UserText("go")}}

	blocks, resp, err := collect(t, m, req)
	require.NoError(t, err)
	assert.Equal(t, []loop.Block{
		{Type: loop.BlockThinking, Text: "let me see"},
		{Type: loop.BlockText, Text: "Reading both."},
		{Type: loop.BlockToolUse, ID: "call_1", Name: "Read", Input: `{"path":"a.go"}`},
		{Type: loop.BlockToolUse, ID: "x", Name: "Read", Input: `{}`},
	}, blocks)
	assert.Equal(t, loop.Response{StopReason: loop.StopToolUse,
		Usage: loop.Usage{InputTokens: 20, CacheReadInputTokens: 100, OutputTokens: 10}}, resp)

	_, resp, err = collect(t, m, req)
	require.NoError(t, err)
	assert.Equal(t, loop.StopMaxTokens, resp.StopReason)

	blocks, resp, err = collect(t, m, req)
	require.NoError(t, err)
	assert.Equal(t, loop.StopToolUse, resp.StopReason, "a malformed call is a tool_use stop")
	assert.Equal(t, []loop.Block{{Type: loop.BlockText, Text: "I'll use a tool."}}, blocks)

	blocks, _, err = collect(t, m, req)
	require.NoError(t, err)
	assert.Equal(t, "call_2", blocks[0].ID, "made-up ids run on across calls")
}

// A thought signature the API gives a call or a thought goes back with
// it in the next request.
func TestThoughtSignaturesGoBack(t *testing.T) {
	c := newCapture(t,
		chunk(`{"text":"hmm","thought":true,"thoughtSignature":"c2lnMQ=="},{"functionCall":{"id":"c1","name":"Read"},"thoughtSignature":"c2lnMg=="}`, "STOP"),
		chunk(`{"text":"done"}`, "STOP"))
	m, err := gemini.New(gemini.Config{BaseURL: c.url, APIKey: "k"})
	require.NoError(t, err)
	req := loop.Request{Model: "m", MaxTokens: 100, Messages: []loop.Message{loop.UserText("go")}}
	blocks, _, err := collect(t, m, req)
	require.NoError(t, err)
	req.Messages = append(req.Messages, loop.Message{Role: loop.RoleAssistant, Blocks: blocks},
		loop.Message{Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockToolResult, ToolUseID: "c1", Text: "ok"}}})
	_, _, err = collect(t, m, req)
	require.NoError(t, err)
	parts := c.requests()[1].body["contents"].([]any)[1].(map[string]any)["parts"].([]any)
	assert.Equal(t, "c2lnMQ==", parts[0].(map[string]any)["thoughtSignature"])
	assert.Equal(t, "c2lnMg==", parts[1].(map[string]any)["thoughtSignature"])
}

// A stream that ends without a finish reason is a dropped connection;
// an error chunk after content is a stream_error, the parts before it
// handed to the loop; an error status is the API's error.
func TestStreamFailures(t *testing.T) {
	c := newCapture(t,
		chunk(`{"text":"partial"}`, ""),
		chunk(`{"text":"chunk 1"}`, "")+`data: {"error":{"code":500,"message":"boom","status":"INTERNAL"}}`+"\n\n",
	)
	m, err := gemini.New(gemini.Config{BaseURL: c.url, APIKey: "k"})
	require.NoError(t, err)
	req := loop.Request{Model: "m", MaxTokens: 100, Messages: []loop.Message{loop.UserText("go")}}

	_, _, err = collect(t, m, req)
	var re *loop.RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, loop.KindConnection, re.Kind)
	assert.Contains(t, re.Message, "without a finish reason")

	blocks, _, err := collect(t, m, req)
	require.ErrorAs(t, err, &re)
	assert.Equal(t, &loop.RequestError{Kind: loop.KindStream, Message: "boom"}, re)
	assert.Equal(t, []loop.Block{{Type: loop.BlockText, Text: "chunk 1"}}, blocks)
}

// The loop runs over the Model against the fake server: an overload the
// retry layer retries (one HTTP request per attempt), a tool turn, then
// a text reply.
func TestLoopOverModel(t *testing.T) {
	m := newModel(t, []fakemodel.Step{
		{Kind: fakemodel.Overloaded},
		{ToolUses: []fakemodel.ToolUse{{Name: "Bash", Input: `{"cmd":"go test"}`}}},
		{Text: "All tests pass."},
	})
	tools := &fakemodel.Tools{ByName: map[string]fakemodel.Tool{"Bash": {Result: "ok"}}}
	cfg := loop.Config{
		Policy:  loop.ClaudeCode(),
		Model:   m,
		Primary: loop.ModelInfo{Name: "gemini-test", ContextWindow: 1_000_000, MaxOutputTokens: 32_000},
		Tools:   tools,
	}
	res, err := loop.Run(context.Background(), cfg, []loop.Message{loop.UserText("run the tests")})
	require.NoError(t, err)
	assert.Equal(t, loop.Completed, res.Terminal)
	assert.Equal(t, []loop.Transition{loop.NextTurn}, res.Trace.Transitions())
}
