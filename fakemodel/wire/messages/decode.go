package messages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// wireRequest is the part of a Messages API request body the server
// reads. Fields it does not know are ignored.
type wireRequest struct {
	Model     *string           `json:"model"`
	MaxTokens *int              `json:"max_tokens"`
	Messages  []json.RawMessage `json:"messages"`
	System    json.RawMessage   `json:"system"`
	Tools     []json.RawMessage `json:"tools"`
	Stream    bool              `json:"stream"`
}

// wireMessage is one message of a request: content is a string or a list
// of blocks.
type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// wireBlock is one content block of a request message.
type wireBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// rejectf is a request the API refuses with 400 invalid_request_error,
// with the API's message.
func rejectf(format string, args ...any) *wire.Rejection {
	return &wire.Rejection{Type: InvalidRequestError, Message: fmt.Sprintf(format, args...)}
}

// Decode reads a request body as the Messages API does and checks it by
// the API's rules (see the package doc); a body the API refuses returns a
// [*wire.Rejection] whose message is the API's (400
// invalid_request_error), and with it what could be read: nil when the
// body is not JSON, else a Decoded whose Request has at least the model,
// max_tokens and, when every message could be read, the messages and
// purpose. A count_tokens body ([wire.EndpointCount]) needs no
// max_tokens.
//
// The input token count is four characters to a token plus a small
// per-block overhead ([loop.CharEstimator]) over the messages, the system
// prompt and the tool definitions.
func (API) Decode(rt wire.Route, body []byte, opts wire.DecodeOptions) (*wire.Decoded, error) {
	d, err := decode(body, opts.Models, rt.Endpoint != wire.EndpointCount)
	if err != nil {
		return d, err
	}
	return d, nil
}

func decode(body []byte, models []loop.ModelInfo, needMaxTokens bool) (*wire.Decoded, *wire.Rejection) {
	w, rj := parseRequest(body)
	if rj != nil {
		return nil, rj
	}
	d := &wire.Decoded{Stream: w.Stream}
	d.Request.NonStreaming = !w.Stream
	if w.Model != nil {
		d.Request.Model = *w.Model
	}
	if w.MaxTokens != nil {
		d.Request.MaxTokens = *w.MaxTokens
	}
	switch {
	case w.Model == nil || *w.Model == "":
		return d, rejectf("model: Field required")
	case w.MaxTokens == nil && needMaxTokens:
		return d, rejectf("max_tokens: Field required")
	case w.MaxTokens == nil:
		w.MaxTokens = new(int)
	case *w.MaxTokens < 1:
		return d, rejectf("max_tokens: Input should be greater than or equal to 1")
	case len(w.Messages) == 0:
		return d, rejectf("messages: at least one message is required")
	}
	if rj := decodeMessages(d, w.Messages); rj != nil {
		return d, rj
	}
	for _, m := range models {
		if m.Name == *w.Model && m.MaxOutputTokens > 0 && *w.MaxTokens > m.MaxOutputTokens {
			return d, rejectf("max_tokens: %d > %d, which is the maximum allowed number of output tokens for %s",
				*w.MaxTokens, m.MaxOutputTokens, m.Name)
		}
	}
	if rj := checkPairing(d.Request.Messages); rj != nil {
		return d, rj
	}
	if rj := decodeTools(d, w.Tools); rj != nil {
		return d, rj
	}
	if len(w.System) > 0 && !bytes.Equal(w.System, []byte("null")) {
		d.SystemTokens += wire.RawTokens(w.System)
	}
	var est loop.CharEstimator
	input := d.SystemTokens
	for i := range d.Request.Messages {
		d.Request.Messages[i].Tokens = est.Estimate(d.Request.Messages[i])
		input += d.Request.Messages[i].Tokens
	}
	d.Request.InputTokens = input
	return d, nil
}

// parseRequest reads the body's JSON: text JSON allows, one object, the
// fields of the right types.
func parseRequest(body []byte) (*wireRequest, *wire.Rejection) {
	if err := wire.CheckText(body); err != nil {
		return nil, rejectf("The request body is not valid JSON: %v", err)
	}
	var w wireRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&w); err != nil {
		if field, _, ok := wire.JSONTypeError(err); ok && field == "" {
			return nil, rejectf("The request body is not valid JSON: expected an object at the top level")
		}
		return nil, typeRejection("", err)
	}
	if dec.More() {
		return nil, rejectf("The request body is not valid JSON: data after the top-level object")
	}
	return &w, nil
}

// decodeMessages reads the messages into d: the conversation's, with
// their shapes, hashes and purpose; a system message counts with the
// system prompt (the API takes them among the others, and the released
// agent sends one).
func decodeMessages(d *wire.Decoded, raws []json.RawMessage) *wire.Rejection {
	msgs := make([]loop.Message, 0, len(raws))
	for i, raw := range raws {
		var wm wireMessage
		if err := json.Unmarshal(raw, &wm); err != nil {
			return typeRejection(fmt.Sprintf("messages.%d", i), err)
		}
		if wm.Role == "system" {
			if c := bytes.TrimSpace(wm.Content); len(c) == 0 || bytes.Equal(c, []byte("null")) {
				return rejectf("messages.%d.content: Field required", i)
			}
			d.SystemTokens += wire.RawTokens(wm.Content)
			continue
		}
		m, rj := decodeMessage(i, wm, i == len(raws)-1)
		if rj != nil {
			return rj
		}
		msgs = append(msgs, m)
		d.Shapes = append(d.Shapes, wire.Shape(m))
		d.Hashes = append(d.Hashes, wire.HashMessage(wm.Role, wm.Content))
	}
	if len(msgs) == 0 {
		return rejectf("messages: at least one user or assistant message is required")
	}
	d.Request.Messages, d.Request.Purpose = msgs, wire.PurposeOf(msgs)
	return nil
}

// decodeTools reads the tool definitions' names into d, and counts their
// size with the system prompt.
func decodeTools(d *wire.Decoded, raws []json.RawMessage) *wire.Rejection {
	d.Request.Tools = make([]string, 0, len(raws))
	for i, raw := range raws {
		var t struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(raw, &t); err != nil || t.Name == "" {
			return rejectf("tools.%d.name: Field required", i)
		}
		d.Request.Tools = append(d.Request.Tools, t.Name)
		d.SystemTokens += wire.RawTokens(raw)
	}
	return nil
}

// decodeMessage converts one request message. Content that is neither a
// string nor a list of blocks, and empty content (except in a final
// assistant message, a prefill), are rejected as the API rejects them.
func decodeMessage(i int, wm wireMessage, last bool) (loop.Message, *wire.Rejection) {
	m := loop.Message{ID: fmt.Sprintf("w%d", i+1)}
	switch wm.Role {
	case "user":
		m.Role = loop.RoleUser
	case "assistant":
		m.Role = loop.RoleAssistant
	default:
		return m, rejectf("messages.%d.role: Input should be 'user' or 'assistant'", i)
	}
	empty := rejectf("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
	content := bytes.TrimSpace(wm.Content)
	switch {
	case len(content) == 0 || bytes.Equal(content, []byte("null")):
		return m, rejectf("messages.%d.content: Field required", i)
	case content[0] == '"':
		var s string
		if err := json.Unmarshal(content, &s); err != nil {
			return m, rejectf("messages.%d.content: %v", i, err)
		}
		if s == "" && !(last && m.Role == loop.RoleAssistant) {
			return m, empty
		}
		m.Blocks = []loop.Block{{Type: loop.BlockText, Text: s}}
		return m, nil
	case content[0] != '[':
		return m, rejectf("messages.%d.content: Input should be a valid string or a valid list", i)
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(content, &blocks); err != nil {
		return m, typeRejection(fmt.Sprintf("messages.%d.content", i), err)
	}
	if len(blocks) == 0 && !(last && m.Role == loop.RoleAssistant) {
		return m, empty
	}
	for j, raw := range blocks {
		var b wireBlock
		if err := json.Unmarshal(raw, &b); err != nil {
			return m, typeRejection(fmt.Sprintf("messages.%d.content.%d", i, j), err)
		}
		lb, err := decodeBlock(b, m.Role)
		if err != nil {
			return m, rejectf("messages.%d.content.%d: %v", i, j, err)
		}
		m.Blocks = append(m.Blocks, lb)
	}
	return m, nil
}

// decodeBlock converts one content block. Blocks the loop has no type for
// (images, documents, server tools) become text blocks carrying only
// their size.
func decodeBlock(b wireBlock, role loop.Role) (loop.Block, error) {
	switch b.Type {
	case "text":
		if b.Text == nil {
			return loop.Block{}, fmt.Errorf("text: Field required")
		}
		if *b.Text == "" {
			return loop.Block{}, fmt.Errorf("text content blocks must be non-empty")
		}
		return loop.Block{Type: loop.BlockText, Text: *b.Text}, nil
	case "thinking":
		return loop.Block{Type: loop.BlockThinking, Text: b.Thinking}, nil
	case "redacted_thinking":
		return loop.Block{Type: loop.BlockThinking}, nil
	case "tool_use":
		if role != loop.RoleAssistant {
			return loop.Block{}, fmt.Errorf("tool_use blocks can only be in assistant messages")
		}
		if b.ID == "" || b.Name == "" {
			return loop.Block{}, fmt.Errorf("tool_use: id and name are required")
		}
		input := string(bytes.TrimSpace(b.Input))
		if input == "" {
			return loop.Block{}, fmt.Errorf("tool_use.input: Field required")
		}
		return loop.Block{Type: loop.BlockToolUse, ID: b.ID, Name: b.Name, Input: input}, nil
	case "tool_result":
		if role != loop.RoleUser {
			return loop.Block{}, fmt.Errorf("tool_result blocks can only be in user messages")
		}
		if b.ToolUseID == "" {
			return loop.Block{}, fmt.Errorf("tool_result.tool_use_id: Field required")
		}
		return loop.Block{Type: loop.BlockToolResult, ToolUseID: b.ToolUseID, Text: resultText(b.Content), IsError: b.IsError}, nil
	case "":
		return loop.Block{}, fmt.Errorf("type: Field required")
	}
	if !slices.Contains(blockTypes, b.Type) {
		return loop.Block{}, fmt.Errorf("Input tag '%s' found using 'type' does not match any of the expected tags: '%s'",
			b.Type, strings.Join(blockTypes, "', '"))
	}
	raw, _ := json.Marshal(b)
	return loop.Block{Type: loop.BlockText, Tokens: wire.RawTokens(raw)}, nil
}

// blockTypes are the content block types the API takes in a request
// (its beta endpoint's list, which Claude Code calls). The loop has a
// type for text, thinking, tool_use and tool_result; the others are
// read as text blocks carrying only their size. Any other type is
// refused as the API refuses it.
var blockTypes = []string{"text", "image", "document", "search_result", "thinking", "redacted_thinking",
	"tool_use", "tool_result", "server_tool_use", "web_search_tool_result", "web_fetch_tool_result",
	"advisor_tool_result", "code_execution_tool_result", "bash_code_execution_tool_result",
	"text_editor_code_execution_tool_result", "tool_search_tool_result", "mcp_tool_use", "mcp_tool_result",
	"container_upload", "compaction", "tool_addition", "tool_removal", "mcp_tool_listing", "fallback"}

// typeRejection is a JSON value of the wrong type in the API's words,
// "max_tokens: Input should be a valid integer", its field's path after
// prefix (the path of the value decoded); any other decode error as the
// API reports a body that is not JSON. nil when err is nil.
func typeRejection(prefix string, err error) *wire.Rejection {
	if err == nil {
		return nil
	}
	field, want, ok := wire.JSONTypeError(err)
	if !ok {
		return rejectf("The request body is not valid JSON: %v", err)
	}
	path := prefix
	switch {
	case path == "":
		path = field
	case field != "":
		path += "." + field
	}
	return rejectf("%s: Input should be %s", path, pydanticKind[want])
}

// pydanticKind is the API's words for a JSON type.
var pydanticKind = map[string]string{"integer": "a valid integer", "number": "a valid number", "string": "a valid string",
	"boolean": "a valid boolean", "array": "a valid list", "object": "a valid dictionary"}

// resultText is a tool_result's content as text: the string, or the text
// of its text blocks.
func resultText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var sb strings.Builder
	for _, b := range blocks {
		sb.WriteString(b.Text)
	}
	return sb.String()
}

// checkPairing applies the API's tool rules: every tool_use of an
// assistant message has its tool_result in the next message, a user
// message, and every tool_result answers a tool_use of the message just
// before it.
func checkPairing(msgs []loop.Message) *wire.Rejection {
	if rj := checkUnique(msgs); rj != nil {
		return rj
	}
	for i, m := range msgs {
		if m.Role == loop.RoleUser {
			var prev []loop.Block
			if i > 0 && msgs[i-1].Role == loop.RoleAssistant {
				prev = msgs[i-1].ToolUses()
			}
			for j, b := range m.Blocks {
				if b.Type == loop.BlockToolResult && !hasToolUse(prev, b.ToolUseID) {
					return rejectf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. "+
						"Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
				}
			}
			continue
		}
		uses := m.ToolUses()
		if len(uses) == 0 {
			continue
		}
		var missing []string
		for _, u := range uses {
			if i+1 >= len(msgs) || msgs[i+1].Role != loop.RoleUser || !hasToolResult(msgs[i+1], u.ID) {
				missing = append(missing, u.ID)
			}
		}
		if len(missing) > 0 {
			return rejectf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. "+
				"Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(missing, ", "))
		}
	}
	return nil
}

// checkUnique applies the API's rules on ids: a tool_use id appears once
// in the whole conversation, and a user message answers a tool_use with
// one tool_result only.
func checkUnique(msgs []loop.Message) *wire.Rejection {
	uses := map[string]bool{}
	for i, m := range msgs {
		results := map[string]bool{}
		for j, b := range m.Blocks {
			switch b.Type {
			case loop.BlockToolUse:
				if uses[b.ID] {
					return rejectf("messages.%d.content.%d: `tool_use` ids must be unique", i, j)
				}
				uses[b.ID] = true
			case loop.BlockToolResult:
				if results[b.ToolUseID] {
					return rejectf("messages.%d.content.%d: each tool_use must have a single result. "+
						"Found multiple `tool_result` blocks with id: %s", i, j, b.ToolUseID)
				}
				results[b.ToolUseID] = true
			}
		}
	}
	return nil
}

func hasToolUse(blocks []loop.Block, id string) bool {
	for _, b := range blocks {
		if b.ID == id {
			return true
		}
	}
	return false
}

func hasToolResult(m loop.Message, id string) bool {
	for _, b := range m.Blocks {
		if b.Type == loop.BlockToolResult && b.ToolUseID == id {
			return true
		}
	}
	return false
}
