package responses

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// itemKind is what an input item is, for grouping items into messages.
type itemKind int

const (
	itemNone      itemKind = iota // nothing yet, or an item that ends a message (system, developer)
	itemMessage                   // a message item
	itemReasoning                 // a reasoning item
	itemCall                      // a tool call
	itemOutput                    // a tool call's output
	itemOwn                       // an item that is a message of its own (compaction)
)

// conversation is a request's input read into the loop's messages.
type conversation struct {
	msgs         []loop.Message
	shapes       []string
	hashes       []uint64
	raws         [][]byte // each message's items, raw, for its hash
	systemTokens int      // system and developer messages
	calls        []call   // tool calls, in order
	outputs      []call   // tool outputs, in order
	last         itemKind
}

// call is a tool call or output: its call_id and the item's param.
type call struct {
	id, param string
}

// readInput reads the input field: a string (one user message) or a list
// of items.
func readInput(raw json.RawMessage) (*conversation, *wire.Rejection) {
	c := &conversation{}
	if wire.ValueKind(raw) == "a string" {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, wrongType("input", "a string or an array of input items", raw)
		}
		c.add(loop.RoleUser, itemMessage, raw, loop.Block{Type: loop.BlockText, Text: s}, true)
		c.finish()
		return c, nil
	}
	if wire.ValueKind(raw) != "an array" {
		return nil, wrongType("input", "a string or an array of input items", raw)
	}
	items, rej := list("input", raw)
	if rej != nil {
		return nil, rej
	}
	for i, it := range items {
		if rej := c.item(fmt.Sprintf("input[%d]", i), it); rej != nil {
			return c, rej
		}
	}
	c.finish()
	return c, nil
}

// add appends blocks to the current message when it has role and begins
// is false, else to a new message; raw is the item, for the hash.
func (c *conversation) add(role loop.Role, kind itemKind, raw json.RawMessage, b loop.Block, begins bool) {
	c.addBlocks(role, kind, raw, []loop.Block{b}, begins)
}

func (c *conversation) addBlocks(role loop.Role, kind itemKind, raw json.RawMessage, blocks []loop.Block, begins bool) {
	n := len(c.msgs)
	if begins || n == 0 || c.msgs[n-1].Role != role || c.last == itemNone {
		c.msgs = append(c.msgs, loop.Message{ID: fmt.Sprintf("w%d", n+1), Role: role})
		c.raws = append(c.raws, nil)
		n++
	}
	c.msgs[n-1].Blocks = append(c.msgs[n-1].Blocks, blocks...)
	c.raws[n-1] = append(append(c.raws[n-1], raw...), '\n')
	c.last = kind
}

// finish computes each message's shape and hash.
func (c *conversation) finish() {
	for i, m := range c.msgs {
		c.shapes = append(c.shapes, wire.Shape(m))
		c.hashes = append(c.hashes, wire.HashMessage(string(m.Role), c.raws[i]))
	}
}

// item reads one input item.
func (c *conversation) item(param string, raw json.RawMessage) *wire.Rejection {
	o, rej := obj(param, raw)
	if rej != nil {
		return rej
	}
	typ, hasType, rej := o.str(param, "type")
	if rej != nil {
		return rej
	}
	if !hasType {
		if _, ok := o["role"]; !ok {
			return missing(join(param, "type"))
		}
		typ = "message" // an easy input message: role and content
	}
	switch typ {
	case "message":
		return c.message(param, o, raw)
	case "reasoning":
		text, rej := reasoningText(param, o)
		if rej != nil {
			return rej
		}
		c.add(loop.RoleAssistant, itemReasoning, raw, loop.Block{Type: loop.BlockThinking, Text: text}, c.last != itemReasoning)
	case "function_call", "custom_tool_call", "local_shell_call":
		return c.toolCall(param, typ, o, raw)
	case "function_call_output", "custom_tool_call_output":
		return c.toolOutput(param, o, raw)
	case "compaction":
		text, _, rej := o.str(param, "encrypted_content")
		if rej != nil {
			return rej
		}
		c.add(loop.RoleUser, itemOwn, raw, loop.Block{Type: loop.BlockText, Text: text}, true)
	case "item_reference":
		return rejection(join(param, "id"), CodePreviousResponseAbsent,
			"Item references are not supported: loopsim's fake server keeps no items; send the item itself.")
	default:
		// an item the loop has no block for (a web search, a file
		// search, an image generation call): its size only, in a
		// message of its own
		c.add(loop.RoleUser, itemOwn, raw, loop.Block{Type: loop.BlockText, Tokens: wire.RawTokens(raw)}, true)
	}
	return nil
}

// message reads a message item.
func (c *conversation) message(param string, o object, raw json.RawMessage) *wire.Rejection {
	role, rej := o.need(param, "role")
	if rej != nil {
		return rej
	}
	content := o["content"]
	if wire.IsNull(content) {
		return missing(join(param, "content"))
	}
	var r loop.Role
	switch role {
	case "user":
		r = loop.RoleUser
	case "assistant":
		r = loop.RoleAssistant
	case "system", "developer":
		if k := wire.ValueKind(content); k != "a string" && k != "an array" {
			return wrongType(join(param, "content"), "a string or an array", content)
		}
		c.systemTokens += wire.RawTokens(content)
		c.last = itemNone
		return nil
	default:
		return rejection(join(param, "role"), CodeInvalidValue,
			"Invalid value: '%s'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", role)
	}
	blocks, rej := parts(join(param, "content"), r, content)
	if rej != nil {
		return rej
	}
	begins := !(r == loop.RoleAssistant && c.last == itemReasoning || r == loop.RoleUser && c.last == itemOutput)
	c.addBlocks(r, itemMessage, raw, blocks, begins)
	return nil
}

// parts reads a message's content: a string, or a list of parts.
func parts(param string, role loop.Role, raw json.RawMessage) ([]loop.Block, *wire.Rejection) {
	if wire.ValueKind(raw) == "a string" {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, wrongType(param, "a string or an array", raw)
		}
		return []loop.Block{{Type: loop.BlockText, Text: s}}, nil
	}
	if wire.ValueKind(raw) != "an array" {
		return nil, wrongType(param, "a string or an array", raw)
	}
	list, rej := list(param, raw)
	if rej != nil {
		return nil, rej
	}
	blocks := make([]loop.Block, 0, len(list))
	for j, pr := range list {
		pp := fmt.Sprintf("%s[%d]", param, j)
		p, rej := obj(pp, pr)
		if rej != nil {
			return nil, rej
		}
		typ, rej := p.need(pp, "type")
		if rej != nil {
			return nil, rej
		}
		allowed := []string{"input_text", "input_image", "input_file", "input_audio"}
		if role == loop.RoleAssistant {
			allowed = []string{"output_text", "refusal"}
		}
		if !slices.Contains(allowed, typ) {
			return nil, rejection(join(pp, "type"), CodeInvalidValue,
				"Invalid value: '%s'. Supported values are: %s.", typ, quoted(allowed))
		}
		switch typ {
		case "input_text", "output_text":
			text, rej := p.need(pp, "text")
			if rej != nil {
				return nil, rej
			}
			blocks = append(blocks, loop.Block{Type: loop.BlockText, Text: text})
		case "refusal":
			text, rej := p.need(pp, "refusal")
			if rej != nil {
				return nil, rej
			}
			blocks = append(blocks, loop.Block{Type: loop.BlockText, Text: text})
		default:
			blocks = append(blocks, loop.Block{Type: loop.BlockText, Tokens: wire.RawTokens(pr)})
		}
	}
	return blocks, nil
}

// reasoningText is a reasoning item's text: its reasoning_text content,
// else its summary.
func reasoningText(param string, o object) (string, *wire.Rejection) {
	var sb strings.Builder
	for _, key := range []string{"content", "summary"} {
		items, rej := list(join(param, key), o[key])
		if rej != nil {
			return "", rej
		}
		for j, raw := range items {
			pp := fmt.Sprintf("%s.%s[%d]", param, key, j)
			p, rej := obj(pp, raw)
			if rej != nil {
				return "", rej
			}
			text, _, rej := p.str(pp, "text")
			if rej != nil {
				return "", rej
			}
			sb.WriteString(text)
		}
		if sb.Len() > 0 {
			break
		}
	}
	return sb.String(), nil
}

// toolCall reads a function_call (custom_tool_call, local_shell_call):
// a tool_use block.
func (c *conversation) toolCall(param, typ string, o object, raw json.RawMessage) *wire.Rejection {
	id, rej := o.need(param, "call_id")
	if rej != nil {
		return rej
	}
	var name, input string
	switch typ {
	case "function_call":
		if name, rej = o.need(param, "name"); rej != nil {
			return rej
		}
		if input, rej = o.need(param, "arguments"); rej != nil {
			return rej
		}
	case "custom_tool_call":
		if name, rej = o.need(param, "name"); rej != nil {
			return rej
		}
		text, rej := o.need(param, "input")
		if rej != nil {
			return rej
		}
		b, _ := json.Marshal(map[string]string{"input": text})
		input = string(b)
	default:
		name = "local_shell"
		input = string(o["action"])
	}
	c.calls = append(c.calls, call{id: id, param: param})
	c.add(loop.RoleAssistant, itemCall, raw, loop.Block{Type: loop.BlockToolUse, ID: id, Name: name, Input: input}, false)
	return nil
}

// toolOutput reads a function_call_output (custom_tool_call_output): a
// tool_result block.
func (c *conversation) toolOutput(param string, o object, raw json.RawMessage) *wire.Rejection {
	id, rej := o.need(param, "call_id")
	if rej != nil {
		return rej
	}
	out := o["output"]
	if wire.IsNull(out) {
		return missing(join(param, "output"))
	}
	var text string
	switch wire.ValueKind(out) {
	case "a string":
		_ = json.Unmarshal(out, &text)
	case "an array":
		blocks, rej := parts(join(param, "output"), loop.RoleUser, out)
		if rej != nil {
			return rej
		}
		for _, b := range blocks {
			text += b.Text
		}
	default:
		return wrongType(join(param, "output"), "a string or an array", out)
	}
	c.outputs = append(c.outputs, call{id: id, param: param})
	c.add(loop.RoleUser, itemOutput, raw, loop.Block{Type: loop.BlockToolResult, ToolUseID: id, Text: text}, c.last != itemOutput)
	return nil
}

// checkPairing applies the API's rule: every tool call is answered by an
// output with its call_id, every output answers a call, and no call_id
// is used twice.
func checkPairing(c *conversation) *wire.Rejection {
	calls := map[string]bool{}
	for _, k := range c.calls {
		if calls[k.id] {
			return rejection(join(k.param, "call_id"), CodeInvalidValue, "Duplicate value for 'call_id' of %s in input.", k.id)
		}
		calls[k.id] = true
	}
	answered := map[string]bool{}
	for _, o := range c.outputs {
		if !calls[o.id] {
			return rejection("input", "", "No tool call found for function call output with call_id %s.", o.id)
		}
		if answered[o.id] {
			return rejection(join(o.param, "call_id"), CodeInvalidValue, "Duplicate function call output for call_id %s in input.", o.id)
		}
		answered[o.id] = true
	}
	for _, k := range c.calls {
		if !answered[k.id] {
			return rejection("input", "", "No tool output found for function call %s.", k.id)
		}
	}
	return nil
}

// quoted lists values as the API's messages do: 'a', 'b', and 'c'.
func quoted(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "'" + v + "'"
	}
	if len(q) <= 2 {
		return strings.Join(q, " and ")
	}
	return strings.Join(q[:len(q)-1], ", ") + ", and " + q[len(q)-1]
}
