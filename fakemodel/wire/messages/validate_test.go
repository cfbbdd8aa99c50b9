package messages_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/messages"
	"github.com/loopsim/loopsim/loop"
)

func toolUse(id string) map[string]any {
	return map[string]any{"role": "assistant", "content": []any{
		map[string]any{"type": "text", "text": "reading"},
		map[string]any{"type": "tool_use", "id": id, "name": "Read", "input": map[string]any{}}}}
}

func toolResult(id string) map[string]any {
	return map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}}}
}

// TestRejectsWhatTheAPIRejects: each malformed request gets the API's
// 400 with its message. It runs over 80 lines for its table: one line a
// refusal.
func TestRejectsWhatTheAPIRejects(t *testing.T) {
	withMax := func(b body, n int) body { b["max_tokens"] = n; return b }
	without := func(b body, k string) body { delete(b, k); return b }
	cases := []struct {
		name    string
		body    any
		message string
	}{
		{"not JSON", []byte(`{"model": `), "request body is not valid JSON"},
		{"not an object", []byte(`[1,2]`), "request body is not valid JSON"},
		{"trailing data", []byte(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}]} {}`), "data after the top-level object"},
		{"no model", without(request(true, userText("go")), "model"), "model: Field required"},
		{"no max_tokens", without(request(true, userText("go")), "max_tokens"), "max_tokens: Field required"},
		{"zero max_tokens", withMax(request(true, userText("go")), 0), "max_tokens: Input should be greater than or equal to 1"},
		{"max_tokens over the model's maximum", withMax(request(true, userText("go")), 64_001),
			"max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for claude-test"},
		{"no messages", request(true), "messages: at least one message is required"},
		{"bad role", request(true, map[string]any{"role": "tool", "content": "x"}), "messages.0.role: Input should be 'user' or 'assistant'"},
		{"empty content", request(true, userText("")), "messages.0: all messages must have non-empty content except for the optional final assistant message"},
		{"empty block list", request(true, userText("go"), map[string]any{"role": "assistant", "content": []any{}}, userText("go")),
			"messages.1: all messages must have non-empty content"},
		{"empty text block", request(true, map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": ""}}}),
			"messages.0.content.0: text content blocks must be non-empty"},
		{"content of the wrong type", request(true, map[string]any{"role": "user", "content": 3}), "messages.0.content: Input should be a valid string or a valid list"},
		{"tool_use without its tool_result", request(true, userText("go"), toolUse("toolu_1"), userText("and?")),
			"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1."},
		{"tool_use last", request(true, userText("go"), toolUse("toolu_1")),
			"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1."},
		{"tool_result for an unknown id", request(true, userText("go"), toolUse("toolu_1"), map[string]any{"role": "user", "content": []any{
			toolResult("toolu_1")["content"].([]any)[0], toolResult("toolu_2")["content"].([]any)[0]}}),
			"messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_2."},
		{"tool_result with no tool_use before", request(true, toolResult("toolu_1")),
			"messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1."},
		{"tool_use in a user message", request(true, map[string]any{"role": "user", "content": toolUse("x")["content"]}),
			"tool_use blocks can only be in assistant messages"},
		{"two tool_use blocks with one id", request(true, userText("go"), map[string]any{"role": "assistant", "content": []any{
			toolUse("toolu_1")["content"].([]any)[1], toolUse("toolu_1")["content"].([]any)[1]}}, toolResult("toolu_1")),
			"messages.1.content.1: `tool_use` ids must be unique"},
		{"a tool_use id used again in a later turn", request(true, userText("go"), toolUse("toolu_1"), toolResult("toolu_1"),
			toolUse("toolu_1"), toolResult("toolu_1")),
			"messages.3.content.1: `tool_use` ids must be unique"},
		{"two tool_results for one id", request(true, userText("go"), toolUse("toolu_1"), map[string]any{"role": "user", "content": []any{
			toolResult("toolu_1")["content"].([]any)[0], toolResult("toolu_1")["content"].([]any)[0]}}),
			"messages.2.content.1: each tool_use must have a single result. Found multiple `tool_result` blocks with id: toolu_1"},
		{"unknown block type", request(true, map[string]any{"role": "user", "content": []any{map[string]any{"type": "bogus"}}}),
			"messages.0.content.0: Input tag 'bogus' found using 'type' does not match any of the expected tags: 'text', 'image', "},
		{"invalid UTF-8", []byte("{\"model\":\"m\",\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":\"a\xffb\"}]}"),
			"The request body is not valid JSON: invalid utf-8 encoding in string: line 1 column 68 (char 67)"},
		{"a lone surrogate", []byte(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"a\ud800b"}]}`),
			"The request body is not valid JSON: no low surrogate in string"},
		{"a lone low surrogate", []byte(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"\udc00"}]}`),
			"The request body is not valid JSON: invalid low surrogate in string"},
		{"max_tokens a string", []byte(`{"model":"m","max_tokens":"10","messages":[{"role":"user","content":"go"}]}`),
			"max_tokens: Input should be a valid integer"},
		{"stream a string", []byte(`{"model":"m","max_tokens":10,"stream":"yes","messages":[{"role":"user","content":"go"}]}`),
			"stream: Input should be a valid boolean"},
		{"messages a string", []byte(`{"model":"m","max_tokens":10,"messages":"go"}`), "messages: Input should be a valid list"},
		{"a message a number", []byte(`{"model":"m","max_tokens":10,"messages":[3]}`), "messages.0: Input should be a valid dictionary"},
		{"role a number", []byte(`{"model":"m","max_tokens":10,"messages":[{"role":3,"content":"go"}]}`), "messages.0.role: Input should be a valid string"},
		{"text a number", []byte(`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":3}]}]}`),
			"messages.0.content.0.text: Input should be a valid string"},
		{"tool without a name", func() body { b := request(true, userText("go")); b["tools"] = []any{map[string]any{}}; return b }(),
			"tools.0.name: Field required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			model := &fakemodel.Model{Script: []fakemodel.Step{{Text: "never sent"}}}
			srv := wire.NewServer(model, wire.Options{Models: []loop.ModelInfo{{Name: "claude-test", ContextWindow: 200_000, MaxOutputTokens: 64_000}}}, messages.API{})
			defer srv.Close()
			resp := post(t, srv.URL, c.body)
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
			b := decodeJSON(t, resp)
			e := b["error"].(map[string]any)
			assert.Equal(t, "invalid_request_error", e["type"])
			assert.Contains(t, e["message"], c.message)
			assert.NotContains(t, e["message"], "Go struct", "the API's words, not Go's")
			assert.Empty(t, model.Requests, "a rejected request consumes no step")
			rec := srv.Requests()
			require.Len(t, rec, 1)
			assert.Equal(t, "rejected", rec[0].Answer)
			if c.name == "tool_use without its tool_result" {
				assert.Equal(t, "M:rejected", rec[0].Label(), "what could be read is recorded")
				assert.Equal(t, "uau", rec[0].Roles)
			}
			assert.Contains(t, rec[0].Error, c.message)
		})
	}
}

func TestAcceptsAPairedConversationAndAPrefill(t *testing.T) {
	srv, model := serve(t, wire.Options{}, fakemodel.Step{Text: "ok", Repeat: 2})
	resp := post(t, srv.URL, request(true, userText("go"), toolUse("toolu_1"), toolResult("toolu_1")))
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	resp = post(t, srv.URL, request(false, userText("go"), map[string]any{"role": "assistant", "content": ""}))
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "an empty final assistant message is a prefill")
	require.Len(t, model.Requests, 2)
	msgs := model.Requests[0].Messages
	require.Len(t, msgs, 3)
	assert.Equal(t, loop.BlockToolUse, msgs[1].Blocks[1].Type)
	assert.Equal(t, "{}", msgs[1].Blocks[1].Input)
	assert.Equal(t, loop.Block{Type: loop.BlockToolResult, ToolUseID: "toolu_1", Text: "ok"}, msgs[2].Blocks[0])
}

// The API reads the body as JSON whatever its content type says: a
// client that sends text/plain is answered as one that sends JSON.
func TestAnyContentTypeIsReadAsJSON(t *testing.T) {
	srv, _ := serve(t, wire.Options{}, fakemodel.Step{Text: "ok"})
	resp, err := http.Post(srv.URL+"/v1/messages", "text/plain", strings.NewReader(mustJSON(t, request(false, userText("go")))))
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "message", decodeJSON(t, resp)["type"])
}

// Every block type the API takes is read (as its size when the loop has
// no type for it), not refused.
func TestKnownBlockTypesAreRead(t *testing.T) {
	for _, typ := range []string{"image", "document", "search_result", "server_tool_use", "web_search_tool_result", "mcp_tool_use", "container_upload"} {
		d, err := messages.API{}.Decode(wire.Route{}, []byte(`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[`+
			`{"type":"text","text":"see"},{"type":"`+typ+`","source":{"data":"xxxx"}}]}]}`), wire.DecodeOptions{})
		require.NoError(t, err, typ)
		assert.Positive(t, d.Request.Messages[0].Blocks[1].Tokens, typ)
	}
}

func TestBadBodiesNeverCrash(t *testing.T) {
	srv, _ := serve(t, wire.Options{MaxBodyBytes: 1 << 10})
	for _, raw := range []string{"", "null", "{", `{"messages": "x"}`, `{"model": 3}`, strings.Repeat("[", 1000),
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"tool_result"}]}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{}]}]}`,
		`{"model":"m","max_tokens":1,"messages":[null]}`,
	} {
		resp := post(t, srv.URL, []byte(raw))
		assert.Equal(t, 400, resp.StatusCode, "body %.40q", raw)
		assert.Equal(t, "invalid_request_error", decodeJSON(t, resp)["error"].(map[string]any)["type"], "body %.40q", raw)
	}
	resp := post(t, srv.URL, []byte(`{"model":"`+strings.Repeat("m", 2000)+`"}`))
	assert.Equal(t, 413, resp.StatusCode)
	assert.Equal(t, "request_too_large", decodeJSON(t, resp)["error"].(map[string]any)["type"])
}
