package observed

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/responses"
)

// seenMessage is one message of a request as the watcher weighs it: its
// canonical form (what is hashed and measured, never kept) and its shape.
type seenMessage struct {
	canonical []byte
	shape     string
}

// messageReader is how the messages of a model call are read from its
// body, by the call's endpoint: the Messages API's (Claude Code) or the
// Responses API's, /v1/responses/compact included (Codex). Other
// requests (token counts, other paths) are not watched.
func messageReader(r *http.Request) (func([]byte) []seenMessage, bool) {
	if r.URL.Path == "/v1/messages" {
		return anthropicMessages, true
	}
	rt, ok := responses.API{}.Route(r)
	if !ok || rt.Endpoint == wire.EndpointCount {
		return nil, false
	}
	return func(body []byte) []seenMessage { return responsesMessages(rt, body) }, true
}

// anthropicMessages are a Messages API body's messages but those with
// role "system".
func anthropicMessages(body []byte) []seenMessage {
	var out []seenMessage
	for _, m := range conversation(body) {
		out = append(out, seenMessage{canonical: canonical(m), shape: shape(m)})
	}
	return out
}

// responsesMessages are a Responses API body's input items grouped into
// the loop's messages as the fake server groups them (package
// responses), each in its canonical form: the loop message as JSON. A
// body the API refuses gives what could be read, or none.
func responsesMessages(rt wire.Route, body []byte) []seenMessage {
	d, _ := responses.API{}.Decode(rt, body, wire.DecodeOptions{})
	if d == nil {
		return nil
	}
	var out []seenMessage
	for _, m := range d.Request.Messages {
		c, err := json.Marshal(m)
		if err != nil {
			continue
		}
		out = append(out, seenMessage{canonical: c, shape: wire.Shape(m)})
	}
	return out
}

// wireMsg is a Messages API request message.
type wireMsg struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// conversation returns the request's messages but those with role
// "system" (which count with the system prompt). A body it cannot read
// gives none (the server answers it).
func conversation(body []byte) []wireMsg {
	var top struct {
		Messages []wireMsg `json:"messages"`
	}
	if json.Unmarshal(body, &top) != nil {
		return nil
	}
	var out []wireMsg
	for _, m := range top.Messages {
		if m.Role != "system" {
			out = append(out, m)
		}
	}
	return out
}

// canonical is a message with cache_control markers removed and keys
// sorted, so that the same message hashes the same in every request.
func canonical(m wireMsg) []byte {
	var v any
	if json.Unmarshal(m.Content, &v) != nil {
		return append([]byte(m.Role+":"), m.Content...)
	}
	out, _ := json.Marshal(map[string]any{"role": m.Role, "content": strip(v)})
	return out
}

func strip(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k != "cache_control" {
				out[k] = strip(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = strip(e)
		}
		return out
	}
	return v
}

// shape is a message's role and block types: "user:text+tool_result",
// "user:string" for string content.
func shape(m wireMsg) string {
	var blocks []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(m.Content, &blocks) != nil {
		return m.Role + ":string"
	}
	types := make([]string, len(blocks))
	for i, b := range blocks {
		types[i] = b.Type
	}
	return m.Role + ":" + strings.Join(types, "+")
}
