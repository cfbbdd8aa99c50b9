package messages_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// event is one server-sent event as a client reads it.
type event struct {
	Name string
	Data map[string]any
}

// body is a request body; helpers fill model and max_tokens.
type body map[string]any

func userText(s string) map[string]any { return map[string]any{"role": "user", "content": s} }

func request(stream bool, msgs ...map[string]any) body {
	list := make([]any, len(msgs))
	for i, m := range msgs {
		list[i] = m
	}
	return body{"model": "claude-test", "max_tokens": 1000, "stream": stream, "messages": list}
}

// post sends b (JSON, or raw bytes) to the server's /v1/messages.
func post(t testing.TB, url string, b any) *http.Response {
	t.Helper()
	var raw []byte
	switch v := b.(type) {
	case []byte:
		raw = v
	default:
		var err error
		raw, err = json.Marshal(v)
		require.NoError(t, err)
	}
	resp, err := http.Post(url+"/v1/messages", "application/json", bytes.NewReader(raw))
	require.NoError(t, err)
	return resp
}

// readEvents reads a stream to its end; err is the read error that ended
// it (nil at a clean end).
func readEvents(t testing.TB, r io.Reader) ([]event, error) {
	t.Helper()
	var out []event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &data), line)
			require.Equal(t, name, data["type"], "event name and data type agree")
			out = append(out, event{Name: name, Data: data})
		}
	}
	return out, sc.Err()
}

func names(events []event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Name
	}
	return out
}

// decodeJSON reads a JSON body.
func decodeJSON(t testing.TB, resp *http.Response) map[string]any {
	t.Helper()
	defer resp.Body.Close()
	var v map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&v))
	return v
}

// accumulate rebuilds the content of a stream the way a client does:
// each block's text, thinking or input JSON, in order.
func accumulate(events []event) []map[string]any {
	var blocks []map[string]any
	for _, e := range events {
		switch e.Name {
		case "content_block_start":
			cb := e.Data["content_block"].(map[string]any)
			blocks = append(blocks, map[string]any{"type": cb["type"], "id": cb["id"], "name": cb["name"], "text": "", "input": ""})
		case "content_block_delta":
			b := blocks[int(e.Data["index"].(float64))]
			d := e.Data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				b["text"] = b["text"].(string) + d["text"].(string)
			case "thinking_delta":
				b["text"] = b["text"].(string) + d["thinking"].(string)
			case "input_json_delta":
				b["input"] = b["input"].(string) + d["partial_json"].(string)
			}
		}
	}
	return blocks
}
