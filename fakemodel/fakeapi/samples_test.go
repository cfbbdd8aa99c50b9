package fakeapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
)

// sample is how the generic tests speak one API: a model call asking
// for a streamed answer to one user message ("go"), the same asking for
// one JSON answer, the text a complete stream ends with, and a note for
// the fault table on what only a stream shows (how a failure after
// content blocks reaches the client).
type sample struct {
	path, body  string // streamed
	plainPath   string // not streamed; empty means path
	plainBody   string
	end         string
	streamNote  string
	truncatedAs string // the API's words for a reply cut at its cap
	malformedAs string // the API's words for a tool-use stop without a tool call
}

// samples holds a sample for every API of fakeapi.APIs(), by name. A new
// API adds its entry here, and gets the load and hostile-client tests
// and its column of the fault table.
var samples = map[string]sample{
	"messages": {
		path:        "/v1/messages",
		body:        `{"model":"claude-test","max_tokens":1000,"stream":true,"messages":[{"role":"user","content":"go"}]}`,
		plainBody:   `{"model":"claude-test","max_tokens":1000,"messages":[{"role":"user","content":"go"}]}`,
		end:         "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
		streamNote:  "a failure after content blocks is an `error` event (`{\"type\":\"error\",\"error\":{...}}`) after them; a dropped connection ends the stream without `message_stop`",
		truncatedAs: "`stop_reason: max_tokens`",
		malformedAs: "`stop_reason: tool_use` without a `tool_use` block",
	},
	"chat": {
		path:        "/v1/chat/completions",
		body:        `{"model":"gpt-test","stream":true,"messages":[{"role":"user","content":"go"}]}`,
		plainBody:   `{"model":"gpt-test","messages":[{"role":"user","content":"go"}]}`,
		end:         "data: [DONE]\n\n",
		streamNote:  "the API has no error event: a failure after content blocks is a data line holding the API's error object (`{\"error\":{\"type\":\"server_error\",...}}`), which the OpenAI SDKs raise as an error, and no `[DONE]`; a dropped connection ends the stream without the chunk carrying `finish_reason` and `[DONE]`; a truncated tool call's arguments travel cut, as the malformed tool call",
		truncatedAs: "`finish_reason: length`",
		malformedAs: "`finish_reason: tool_calls` without `tool_calls`",
	},
	"gemini": {
		path:        "/v1beta/models/gemini-test:streamGenerateContent?alt=sse",
		body:        `{"contents":[{"role":"user","parts":[{"text":"go"}]}]}`,
		plainPath:   "/v1beta/models/gemini-test:generateContent",
		plainBody:   `{"contents":[{"role":"user","parts":[{"text":"go"}]}]}`,
		end:         `"finishReason":"STOP","index":0}]}` + "\n\n",
		streamNote:  "the API has no error event: a failure after content blocks is one more chunk holding the API's error object (`{\"error\":{\"code\":500,...,\"status\":\"INTERNAL\"}}`), which the genai SDKs return as an `APIError`; a dropped connection ends the stream without the chunk carrying `finishReason`; a malformed tool call is `finishReason: MALFORMED_FUNCTION_CALL`; streamed or not, a rate limit's retry-after is a `google.rpc.RetryInfo` detail of the error (`\"retryDelay\":\"1.500s\"`), not a header",
		truncatedAs: "`finishReason: MAX_TOKENS`",
		malformedAs: "`finishReason: MALFORMED_FUNCTION_CALL`",
	},
	"responses": {
		path:        "/v1/responses",
		body:        `{"model":"gpt-test","max_output_tokens":1000,"stream":true,"input":"go"}`,
		plainBody:   `{"model":"gpt-test","max_output_tokens":1000,"input":"go"}`,
		end:         "\"type\":\"response.completed\"}\n\n",
		streamNote:  "a failure after content items is a `response.failed` event after them (its `response.error.code` the failure's: `server_error` for a stream error, `server_is_overloaded`, ...), a tool call it cut left open; a prompt too long is sent in the stream the same way (`context_length_exceeded`), as Codex reads a context overflow only there; a dropped connection ends the stream without `response.completed`",
		truncatedAs: "`status: incomplete`, `incomplete_details.reason: max_output_tokens`",
		malformedAs: "a completed response without a `function_call` (the API has no stop reason to say more)",
	},
}

// eachAPI runs f for every registered API, failing for one without a
// sample.
func eachAPI(t *testing.T, f func(t *testing.T, api wire.API, s sample)) {
	for _, api := range fakeapi.APIs() {
		t.Run(api.Name(), func(t *testing.T) {
			s, ok := samples[api.Name()]
			if !ok {
				t.Fatalf("no sample for the %s API: add one to samples in fakemodel/fakeapi/samples_test.go", api.Name())
			}
			f(t, api, s)
		})
	}
}

func client() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
}

// stream sends the sample's request and reads the stream to its end.
func stream(ctx context.Context, c *http.Client, url string, s sample) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+s.path, strings.NewReader(s.body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !bytes.HasSuffix(b, []byte(s.end)) {
		return fmt.Errorf("status %d, a stream that does not end with %q: %.200q", resp.StatusCode, s.end, b)
	}
	return nil
}

// mustRequest is the sample's request, with ctx.
func mustRequest(t testing.TB, ctx context.Context, url string, s sample) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+s.path, strings.NewReader(s.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return req
}

func readAll(resp *http.Response) ([]byte, error) { return io.ReadAll(resp.Body) }
