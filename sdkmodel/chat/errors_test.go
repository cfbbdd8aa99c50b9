package chat_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/chat"
)

// rawAnswer is a server that answers every request with status, body
// and headers (name, value pairs).
func rawAnswer(t *testing.T, status int, contentType, body string, headers ...string) *chat.Model {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	m, err := chat.New(chat.Config{BaseURL: srv.URL + "/v1", APIKey: "k"})
	require.NoError(t, err)
	return m
}

func apiError(code, msg string) string {
	c := "null"
	if code != "" {
		c = `"` + code + `"`
	}
	return `{"error":{"message":"` + msg + `","type":"x","param":null,"code":` + c + `}}`
}

// Classify reads answers other servers give as the API would mean them:
// by the code, else the message, else the status; a body that is not the
// API's error object (a proxy's page) is classified by its status.
func TestClassifyReadsOtherServersAnswers(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		ctype   string
		body    string
		headers []string
		kind    loop.ErrorKind
		code    int
		message string
		retryMS int
	}{
		{"context length without the numbers", 400, "application/json", apiError("context_length_exceeded", "too many tokens"), nil,
			loop.KindPromptTooLong, 400, "too many tokens", 0},
		{"context length by its message only", 400, "application/json",
			apiError("", "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages."), nil,
			loop.KindPromptTooLong, 400, "prompt is too long: 9000 tokens > 8192 maximum", 0},
		{"image too large", 400, "application/json", apiError("", "Image exceeds the maximum size"), nil, loop.KindMediaTooLarge, 400, "Image exceeds the maximum size", 0},
		{"other 400", 400, "application/json", apiError("invalid_value", "bad"), nil, loop.KindInvalidRequest, 400, "bad", 0},
		{"retry-after in seconds", 429, "application/json", apiError("rate_limit_exceeded", "slow down"), []string{"retry-after", "3"}, loop.KindRateLimited, 429, "slow down", 3000},
		{"retry-after-ms first", 429, "application/json", apiError("", "slow down"), []string{"retry-after", "3", "retry-after-ms", "250"}, loop.KindRateLimited, 429, "slow down", 250},
		{"503 saying overloaded", 503, "application/json", apiError("", "The server is overloaded or not ready yet."), nil, loop.KindOverloaded, 529, "The server is overloaded or not ready yet.", 0},
		{"503 not saying so", 503, "application/json", apiError("", "maintenance"), nil, loop.KindServer, 503, "maintenance", 0},
		{"404", 404, "application/json", apiError("model_not_found", "no such model"), nil, loop.KindOther, 404, "no such model", 0},
		{"a proxy's 502 page", 502, "text/html", "<html>Bad Gateway</html>", nil, loop.KindServer, 502, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := rawAnswer(t, c.status, c.ctype, c.body, c.headers...)
			for _, stream := range []bool{false, true} {
				_, err := m.Stream(context.Background(), loop.Request{Model: "gpt-test", MaxTokens: 10, Messages: []loop.Message{loop.UserText("go")}, NonStreaming: !stream},
					func(loop.Block) {})
				var re *loop.RequestError
				require.True(t, errors.As(err, &re), "stream %v: %v", stream, err)
				assert.Equal(t, c.kind, re.Kind)
				assert.Equal(t, c.code, re.Status)
				if c.message != "" {
					assert.Equal(t, c.message, re.Message)
				}
				assert.Equal(t, c.retryMS, re.RetryAfterMS)
			}
		})
	}
}

// A stream that ends without a finish_reason is a dropped connection;
// one that is not an event stream at all is a plain error the run ends
// with.
func TestStreamsThatEndWrong(t *testing.T) {
	m := rawAnswer(t, 200, "text/event-stream",
		"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"},\"finish_reason\":null}]}\n\n")
	var blocks []loop.Block
	_, err := m.Stream(context.Background(), loop.Request{Model: "gpt-test", Messages: []loop.Message{loop.UserText("go")}},
		func(b loop.Block) { blocks = append(blocks, b) })
	var re *loop.RequestError
	require.True(t, errors.As(err, &re), "%v", err)
	assert.Equal(t, loop.KindConnection, re.Kind)
	assert.Equal(t, []loop.Block{{Type: loop.BlockText, Text: "par"}}, blocks, "what arrived is handed over")

	m = rawAnswer(t, 200, "text/event-stream", "data: {not json}\n\n")
	_, err = m.Stream(context.Background(), loop.Request{Model: "gpt-test", Messages: []loop.Message{loop.UserText("go")}}, func(loop.Block) {})
	require.Error(t, err)
	assert.False(t, errors.As(err, &re), "not a request error: %v", err)
}

// A tool call that comes without arguments (some servers send none for a
// tool with no parameters) reaches the loop with the empty object,
// streamed or not.
func TestToolCallWithoutArgumentsIsTheEmptyObject(t *testing.T) {
	chunk := `{"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`
	stream := "data: " + fmt.Sprintf(chunk, `{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"Now"}}]}`, "null") + "\n\n" +
		"data: " + fmt.Sprintf(chunk, `{}`, `"tool_calls"`) + "\n\ndata: [DONE]\n\n"
	whole := `{"id":"c","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls",` +
		`"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"Now","arguments":""}}]}}]}`
	for _, c := range []struct {
		ctype, body string
		stream      bool
	}{{"text/event-stream", stream, true}, {"application/json", whole, false}} {
		m := rawAnswer(t, 200, c.ctype, c.body)
		var blocks []loop.Block
		resp, err := m.Stream(context.Background(), loop.Request{Model: "gpt-test", Messages: []loop.Message{loop.UserText("go")}, NonStreaming: !c.stream},
			func(b loop.Block) { blocks = append(blocks, b) })
		require.NoError(t, err)
		assert.Equal(t, []loop.Block{{Type: loop.BlockToolUse, ID: "call_1", Name: "Now", Input: "{}"}}, blocks, "stream %v", c.stream)
		assert.Equal(t, loop.StopToolUse, resp.StopReason)
	}
}
