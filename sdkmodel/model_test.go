package sdkmodel_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel"
)

// A streamed reply with thinking, text and a tool use whose input arrives
// in pieces comes out as the loop's blocks, in order, with the usage
// (cache tokens included) and the stop reason.
func TestStreamReply(t *testing.T) {
	s := newServer(t, streamAnswer(concat(
		messageStart(120, 30, 7), ping(),
		thinkingBlock(0, "look at the test first", "sig-1"),
		textBlock(1, "Running ", "the tests."),
		toolBlock(2, "toolu_1", "Bash", `{"cmd":`, `"go test"}`),
		messageEnd(loop.StopToolUse, 42))...))
	m := s.model(t, sdkmodel.Config{})

	blocks, resp, err := collect(t, m, mainRequest())
	require.NoError(t, err)
	assert.Equal(t, []loop.Block{
		{Type: loop.BlockThinking, Text: "look at the test first"},
		{Type: loop.BlockText, Text: "Running the tests."},
		{Type: loop.BlockToolUse, ID: "toolu_1", Name: "Bash", Input: `{"cmd":"go test"}`},
	}, blocks)
	assert.Equal(t, loop.Response{StopReason: loop.StopToolUse,
		Usage: loop.Usage{InputTokens: 120, OutputTokens: 42, CacheReadInputTokens: 30, CacheCreationInputTokens: 7}}, resp)
}

// The request carries the model, max_tokens, stream, the messages with
// their roles and blocks, and the tools; the key and the base URL's path
// prefix are used.
func TestStreamRequestShape(t *testing.T) {
	s := newServer(t, textReply("ok", 10, 1))
	m, err := sdkmodel.New(sdkmodel.Config{BaseURL: s.URL + "/prefix", APIKey: "k-123", System: "be brief",
		Tools: map[string]anthropic.ToolParam{"Bash": {Description: anthropic.String("runs a command"),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"cmd": map[string]any{"type": "string"}}}}}})
	require.NoError(t, err)

	history := []loop.Message{
		loop.UserText("fix it"),
		{Role: loop.RoleAssistant, Blocks: []loop.Block{{Type: loop.BlockText, Text: "looking"},
			{Type: loop.BlockToolUse, ID: "toolu_a", Name: "Bash", Input: `{"cmd":"ls"}`},
			{Type: loop.BlockToolUse, ID: "toolu_b", Name: "Read", Input: `{"path":`}}},
		{Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockToolResult, ToolUseID: "toolu_a", Text: "a.go"},
			{Type: loop.BlockToolResult, ToolUseID: "toolu_b", IsError: true, Text: "bad input"}}},
		{Role: loop.RoleUser, Meta: true, Blocks: []loop.Block{{Type: loop.BlockText, Text: "Stop hook feedback: tests fail"}}},
	}
	req := mainRequest(history...)
	req.Tools = []string{"Bash", "Read"}
	_, _, err = collect(t, m, req)
	require.NoError(t, err)

	got := s.received()
	require.Len(t, got, 1)
	r := got[0]
	assert.Equal(t, "/prefix/v1/messages", r.path)
	assert.Equal(t, "Bearer k-123", r.header.Get("Authorization"))
	assert.Equal(t, "claude-test", r.body["model"])
	assert.EqualValues(t, 1000, r.body["max_tokens"])
	assert.Equal(t, true, r.body["stream"])
	assert.Equal(t, "be brief", jsonPath(t, r.body, "system.0.text"))
	assert.Len(t, r.body["messages"], 4)
	assert.Equal(t, []any{"user", "assistant", "user", "user"}, roles(t, r.body))
	assert.Equal(t, "tool_use", jsonPath(t, r.body, "messages.1.content.1.type"))
	assert.Equal(t, map[string]any{"cmd": "ls"}, jsonPath(t, r.body, "messages.1.content.1.input"))
	// a truncated input is sent as {}
	assert.Equal(t, map[string]any{}, jsonPath(t, r.body, "messages.1.content.2.input"))
	assert.Equal(t, "toolu_b", jsonPath(t, r.body, "messages.2.content.1.tool_use_id"))
	assert.Equal(t, true, jsonPath(t, r.body, "messages.2.content.1.is_error"))
	assert.Equal(t, "a.go", jsonPath(t, r.body, "messages.2.content.0.content.0.text"))
	assert.Equal(t, "Bash", jsonPath(t, r.body, "tools.0.name"))
	assert.Equal(t, "runs a command", jsonPath(t, r.body, "tools.0.description"))
	assert.Equal(t, "string", jsonPath(t, r.body, "tools.0.input_schema.properties.cmd.type"))
	assert.Equal(t, "Read", jsonPath(t, r.body, "tools.1.name"))
	assert.Equal(t, "object", jsonPath(t, r.body, "tools.1.input_schema.type"))
	assert.NotContains(t, r.body, "thinking")
}

func roles(t *testing.T, body map[string]any) []any {
	var out []any
	for _, m := range body["messages"].([]any) {
		out = append(out, m.(map[string]any)["role"])
	}
	return out
}

// A thinking block goes back to the API with the signature it came with;
// thinking is enabled only where max_tokens exceeds the budget.
func TestThinkingSignatureRoundTrip(t *testing.T) {
	s := newServer(t,
		streamAnswer(concat(messageStart(10, 0, 0), thinkingBlock(0, "plan", "sig-xyz"), textBlock(1, "done"), messageEnd(loop.StopEndTurn, 5))...),
		textReply("ok", 20, 1), textReply("ok", 20, 1))
	m := s.model(t, sdkmodel.Config{ThinkingBudget: 500})

	blocks, _, err := collect(t, m, mainRequest())
	require.NoError(t, err)
	history := []loop.Message{loop.UserText("hello"), {Role: loop.RoleAssistant, Blocks: blocks}, loop.UserText("and?")}
	_, _, err = collect(t, m, mainRequest(history...))
	require.NoError(t, err)
	small := mainRequest(history...)
	small.MaxTokens = 500
	_, _, err = collect(t, m, small)
	require.NoError(t, err)

	got := s.received()
	require.Len(t, got, 3)
	assert.Equal(t, "enabled", jsonPath(t, got[0].body, "thinking.type"))
	assert.EqualValues(t, 500, jsonPath(t, got[0].body, "thinking.budget_tokens"))
	assert.Equal(t, "thinking", jsonPath(t, got[1].body, "messages.1.content.0.type"))
	assert.Equal(t, "plan", jsonPath(t, got[1].body, "messages.1.content.0.thinking"))
	assert.Equal(t, "sig-xyz", jsonPath(t, got[1].body, "messages.1.content.0.signature"))
	assert.NotContains(t, got[2].body, "thinking")
}

// A request the loop marks non-streaming goes out without stream, with the
// loop's max_tokens, and its blocks come back whole.
func TestNonStreaming(t *testing.T) {
	s := newServer(t, jsonAnswer(200, `{"id":"msg_2","type":"message","role":"assistant","model":"claude-test",
		"content":[{"type":"text","text":"fine"},{"type":"tool_use","id":"toolu_9","name":"Bash","input":{"cmd":"make"}}],
		"stop_reason":"tool_use","stop_sequence":null,
		"usage":{"input_tokens":900,"output_tokens":33,"cache_read_input_tokens":100,"cache_creation_input_tokens":0}}`))
	m := s.model(t, sdkmodel.Config{})
	req := mainRequest()
	req.NonStreaming, req.MaxTokens = true, 64000

	blocks, resp, err := collect(t, m, req)
	require.NoError(t, err)
	assert.Equal(t, []loop.Block{{Type: loop.BlockText, Text: "fine"},
		{Type: loop.BlockToolUse, ID: "toolu_9", Name: "Bash", Input: `{"cmd":"make"}`}}, blocks)
	assert.Equal(t, loop.Response{StopReason: loop.StopToolUse,
		Usage: loop.Usage{InputTokens: 900, OutputTokens: 33, CacheReadInputTokens: 100}}, resp)
	got := s.received()
	require.Len(t, got, 1)
	assert.NotContains(t, got[0].body, "stream")
	assert.EqualValues(t, 64000, got[0].body["max_tokens"])
}

// Each error response maps to its kind, with the API's message verbatim,
// the status, and the retry-after; the SDK never retries on its own.
func TestErrorKinds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  answer
		want    loop.RequestError
		nonStrm bool
	}{
		{"prompt too long", jsonAnswer(400, errorBody("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")),
			loop.RequestError{Kind: loop.KindPromptTooLong, Status: 400, Message: "prompt is too long: 210000 tokens > 200000 maximum"}, false},
		{"413", jsonAnswer(413, errorBody("request_too_large", "request exceeds the maximum allowed number of bytes")),
			loop.RequestError{Kind: loop.KindRequestTooLarge, Status: 413, Message: "request exceeds the maximum allowed number of bytes"}, false},
		{"media too large", jsonAnswer(400, errorBody("invalid_request_error", "messages.0.content.1.image.source.base64: image exceeds 5 MB maximum")),
			loop.RequestError{Kind: loop.KindMediaTooLarge, Status: 400, Message: "messages.0.content.1.image.source.base64: image exceeds 5 MB maximum"}, false},
		{"other 400", jsonAnswer(400, errorBody("invalid_request_error", "messages.1: tool_use ids were found without tool_result blocks")),
			loop.RequestError{Kind: loop.KindInvalidRequest, Status: 400, Message: "messages.1: tool_use ids were found without tool_result blocks"}, false},
		{"429 retry-after seconds", jsonAnswer(429, errorBody("rate_limit_error", "rate limit exceeded"), "retry-after", "7"),
			loop.RequestError{Kind: loop.KindRateLimited, Status: 429, Message: "rate limit exceeded", RetryAfterMS: 7000}, false},
		{"429 retry-after-ms wins", jsonAnswer(429, errorBody("rate_limit_error", "slow down"), "retry-after", "2", "retry-after-ms", "1500"),
			loop.RequestError{Kind: loop.KindRateLimited, Status: 429, Message: "slow down", RetryAfterMS: 1500}, false},
		{"429 http date ignored", jsonAnswer(429, errorBody("rate_limit_error", "slow down"), "retry-after", "Wed, 21 Oct 2015 07:28:00 GMT"),
			loop.RequestError{Kind: loop.KindRateLimited, Status: 429, Message: "slow down"}, false},
		{"500", jsonAnswer(500, errorBody("api_error", "internal server error")),
			loop.RequestError{Kind: loop.KindServer, Status: 500, Message: "internal server error"}, false},
		{"503", jsonAnswer(503, errorBody("api_error", "unavailable")),
			loop.RequestError{Kind: loop.KindServer, Status: 503, Message: "unavailable"}, false},
		{"529", jsonAnswer(529, errorBody("overloaded_error", "overloaded")),
			loop.RequestError{Kind: loop.KindOverloaded, Status: 529, Message: "overloaded"}, false},
		{"529 non-streaming", jsonAnswer(529, errorBody("overloaded_error", "overloaded")),
			loop.RequestError{Kind: loop.KindOverloaded, Status: 529, Message: "overloaded"}, true},
		{"401", jsonAnswer(401, errorBody("authentication_error", "invalid x-api-key")),
			loop.RequestError{Kind: loop.KindOther, Status: 401, Message: "invalid x-api-key"}, false},
		{"not JSON", jsonAnswer(502, "<html>bad gateway</html>"),
			loop.RequestError{Kind: loop.KindServer, Status: 502, Message: "<html>bad gateway</html>"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.answer, textReply("never", 1, 1))
			req := mainRequest()
			req.NonStreaming = tc.nonStrm
			blocks, _, err := collect(t, s.model(t, sdkmodel.Config{}), req)
			var re *loop.RequestError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, tc.want, *re)
			assert.Empty(t, blocks)
			assert.Len(t, s.received(), 1, "the SDK must not retry")
		})
	}
}

// An error event after the stream began is a stream error, after the
// blocks finished before it; a block cut off by it is not yielded.
func TestMidStreamError(t *testing.T) {
	s := newServer(t, streamAnswer(concat(messageStart(10, 0, 0), textBlock(0, "chunk 1"),
		event{"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`},
		errorEvent("overloaded_error", "Overloaded"))...))
	blocks, _, err := collect(t, s.model(t, sdkmodel.Config{}), mainRequest())
	var re *loop.RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, loop.RequestError{Kind: loop.KindStream, Message: "Overloaded"}, *re)
	assert.Equal(t, []loop.Block{{Type: loop.BlockText, Text: "chunk 1"}}, blocks)
	assert.Len(t, s.received(), 1)
}

// A connection dropped mid-stream, a stream that ends without
// message_stop, and a server that is not there are connection failures.
func TestConnectionFailures(t *testing.T) {
	t.Run("dropped mid-stream", func(t *testing.T) {
		s := newServer(t, dropAnswer(concat(messageStart(10, 0, 0), textBlock(0, "partial"))...))
		blocks, _, err := collect(t, s.model(t, sdkmodel.Config{}), mainRequest())
		var re *loop.RequestError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, loop.KindConnection, re.Kind)
		assert.Equal(t, loop.StatusStreamBegun, re.Status, "the response had begun")
		assert.Contains(t, re.Message, "after 4 stream events")
		assert.Equal(t, []loop.Block{{Type: loop.BlockText, Text: "partial"}}, blocks)
		assert.Len(t, s.received(), 1)
	})
	t.Run("dropped before a response", func(t *testing.T) {
		s := newServer(t, dropAnswerBeforeHeaders)
		_, _, err := collect(t, s.model(t, sdkmodel.Config{}), mainRequest())
		var re *loop.RequestError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, loop.KindConnection, re.Kind)
		assert.Len(t, s.received(), 1)
	})
	t.Run("dropped non-streaming", func(t *testing.T) {
		s := newServer(t, dropAnswerBeforeHeaders)
		req := mainRequest()
		req.NonStreaming = true
		_, _, err := collect(t, s.model(t, sdkmodel.Config{}), req)
		var re *loop.RequestError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, loop.KindConnection, re.Kind)
	})
	t.Run("no message_stop", func(t *testing.T) {
		s := newServer(t, streamAnswer(concat(messageStart(10, 0, 0), textBlock(0, "all"))...))
		_, _, err := collect(t, s.model(t, sdkmodel.Config{}), mainRequest())
		var re *loop.RequestError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, loop.RequestError{Kind: loop.KindConnection, Message: "the stream ended after 4 events without message_stop"}, *re)
	})
	t.Run("nobody listening", func(t *testing.T) {
		s := newServer(t)
		url := s.URL
		s.Close()
		m, err := sdkmodel.New(sdkmodel.Config{BaseURL: url, APIKey: "k"})
		require.NoError(t, err)
		_, _, err = collect(t, m, mainRequest())
		var re *loop.RequestError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, loop.KindConnection, re.Kind)
	})
}

func dropAnswerBeforeHeaders(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

// A stream the SDK cannot follow is a harness error, not an API error.
func TestBrokenStream(t *testing.T) {
	for name, evs := range map[string][]event{
		"undecodable": {messageStart(1, 0, 0), {"content_block_start", `{"type":`}},
		"out of order": concat(messageStart(1, 0, 0), event{"content_block_delta",
			`{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"x"}}`}),
	} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, streamAnswer(evs...))
			_, _, err := collect(t, s.model(t, sdkmodel.Config{}), mainRequest())
			require.Error(t, err)
			var re *loop.RequestError
			assert.False(t, errors.As(err, &re), "got %v", err)
		})
	}
}

// A cancelled context ends the call with the context's error, also while
// the stream is open.
func TestCancel(t *testing.T) {
	release := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeEvents(w, concat(messageStart(1, 0, 0), textBlock(0, "first")))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	m := s.model(t, sdkmodel.Config{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := m.Stream(ctx, mainRequest(), func(loop.Block) { cancel() })
		done <- err
	}()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		require.FailNow(t, "Stream did not return after its context was cancelled")
	}
}

// New refuses a configuration it cannot use.
func TestNewRejects(t *testing.T) {
	for name, cfg := range map[string]sdkmodel.Config{
		"no key":           {},
		"negative budget":  {APIKey: "k", ThinkingBudget: -1},
		"negative timeout": {APIKey: "k", NonStreamingTimeout: -time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := sdkmodel.New(cfg)
			assert.ErrorContains(t, err, "sdkmodel: Config.")
		})
	}
}

// A request the API could not take is refused before it is sent.
func TestRequestRejected(t *testing.T) {
	s := newServer(t)
	m := s.model(t, sdkmodel.Config{})
	for name, req := range map[string]loop.Request{
		"no model":      {Purpose: loop.PurposeMain, MaxTokens: 10},
		"no max_tokens": {Purpose: loop.PurposeMain, Model: "m"},
		"bad role":      {Purpose: loop.PurposeMain, Model: "m", MaxTokens: 10, Messages: []loop.Message{{ID: "x", Role: "system"}}},
		"bad block": {Purpose: loop.PurposeMain, Model: "m", MaxTokens: 10,
			Messages: []loop.Message{{ID: "y", Role: loop.RoleUser, Blocks: []loop.Block{{Type: "image"}}}}},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := collect(t, m, req)
			require.ErrorContains(t, err, "sdkmodel: ")
		})
	}
	assert.Empty(t, s.received())
}
