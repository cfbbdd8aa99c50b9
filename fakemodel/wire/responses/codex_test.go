package responses_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// A request shaped as Codex CLI sends one (developer and environment
// messages, reasoning with encrypted content, function and custom tool
// calls with their outputs, function, custom and built-in tools, store
// false, a stream) is read and answered; the stream carries what Codex's
// parser needs: every item done with its type's fields, and
// response.completed with the response's id and usage.
func TestCodexShapedRequest(t *testing.T) {
	body, err := os.ReadFile("testdata/codex_request.json")
	require.NoError(t, err)
	_, m, srv := serve(t, reply(loop.StopToolUse, usage, thinking("check again"), text("Running the tests."),
		toolUse("call_3", "shell", `{"command":["go","test","./..."]}`)))
	resp, err := http.Post(srv.URL+"/v1/responses", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	assert.Equal(t, "req_loopsim_000001", resp.Header.Get("x-request-id"))

	var names []string
	var done []map[string]any
	var completed map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		if n, ok := strings.CutPrefix(line, "event: "); ok {
			name = n
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(data), &ev))
		require.Equal(t, name, ev["type"], "the event line names the data's type")
		names = append(names, name)
		switch name {
		case "response.output_item.done":
			done = append(done, ev["item"].(map[string]any))
		case "response.completed":
			completed = ev["response"].(map[string]any)
		}
	}
	require.NoError(t, sc.Err())
	assert.Equal(t, "response.created", names[0])
	assert.Equal(t, "response.completed", names[len(names)-1])
	require.Len(t, done, 3)
	assert.Equal(t, "reasoning", done[0]["type"])
	assert.IsType(t, []any{}, done[0]["summary"], "Codex needs summary")
	assert.Equal(t, "message", done[1]["type"])
	assert.Equal(t, "assistant", done[1]["role"])
	assert.Equal(t, "output_text", done[1]["content"].([]any)[0].(map[string]any)["type"])
	assert.Equal(t, map[string]any{"type": "function_call", "id": "fc_loopsim_000001_2", "status": "completed",
		"call_id": "call_3", "name": "shell", "arguments": `{"command":["go","test","./..."]}`}, done[2])
	require.NotNil(t, completed)
	assert.Equal(t, "resp_loopsim_000001", completed["id"])
	u := completed["usage"].(map[string]any)
	for _, k := range []string{"input_tokens", "input_tokens_details", "output_tokens", "output_tokens_details", "total_tokens"} {
		assert.Contains(t, u, k)
	}

	reqs := m.seen()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, "gpt-5-codex", r.Model)
	assert.Equal(t, []string{"shell", "apply_patch", "web_search"}, r.Tools)
	assert.False(t, r.NonStreaming)
	var shapes []string
	for _, msg := range r.Messages {
		shapes = append(shapes, wire.Shape(msg))
	}
	assert.Equal(t, []string{"user:text", "user:text", "assistant:thinking+tool_use", "user:tool_result",
		"assistant:tool_use", "user:tool_result", "assistant:text"}, shapes)
	rec := srv.Requests()[0]
	assert.Equal(t, "M:tool", rec.Label())
	assert.Equal(t, "uuauaua", rec.Roles)
	assert.Positive(t, rec.SystemTokens, "instructions, the developer message and the tools")
}
