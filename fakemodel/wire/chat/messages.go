package chat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// builder turns a request's messages into the loop's, in order: a run
// of tool messages, with the user message right after it, is one loop
// user message (tool_result blocks, then text), as the loop holds a
// turn's tool results and what the user added to them.
type builder struct {
	msgs  []loop.Message
	roles []string // each loop message's API roles, "tool+tool+user"
	raws  [][]byte // each loop message's API messages as sent
	// system is the estimated size of the system and developer messages.
	system int
	// toolRun is set while the last loop message is a run of tool
	// messages that a user message may still join.
	toolRun bool
	// turns are the API messages' roles and tool-call ids, for the
	// pairing rule.
	turns []turn
}

// turn is one API message as the pairing rule sees it.
type turn struct {
	role    string
	calls   []string // an assistant message's tool_calls ids
	answers string   // a tool message's tool_call_id
}

// roleValues are the roles the API takes, as its refusal lists them.
const roleValues = "'system', 'assistant', 'user', 'function', 'tool', and 'developer'"

// add reads message i.
func (b *builder) add(i int, raw json.RawMessage) *wire.Rejection {
	param := fmt.Sprintf("messages[%d]", i)
	obj, rej := object(raw, param)
	if rej != nil {
		return rej
	}
	role, rej := requiredString(obj, "role", param+".role")
	if rej != nil {
		return rej
	}
	t := turn{role: role}
	switch role {
	case "system", "developer":
		if _, rej := content(obj, param, false, "text"); rej != nil {
			return rej
		}
		b.system += wire.RawTokens(obj["content"])
		b.toolRun = false
	case "user", "function":
		blocks, rej := content(obj, param, false, "text", "image_url", "input_audio", "file")
		if rej != nil {
			return rej
		}
		if role == "function" {
			if _, rej := requiredString(obj, "name", param+".name"); rej != nil {
				return rej
			}
		}
		if b.toolRun && role == "user" {
			b.join(role, raw, blocks)
		} else {
			b.start(loop.RoleUser, role, raw, blocks)
		}
		b.toolRun = false
	case "assistant":
		blocks, calls, rej := assistant(obj, param)
		if rej != nil {
			return rej
		}
		t.calls = calls
		b.start(loop.RoleAssistant, role, raw, blocks)
		b.toolRun = false
	case "tool":
		id, rej := requiredString(obj, "tool_call_id", param+".tool_call_id")
		if rej != nil {
			return rej
		}
		parts, rej := content(obj, param, false, "text")
		if rej != nil {
			return rej
		}
		var text strings.Builder
		for _, p := range parts {
			text.WriteString(p.Text)
		}
		block := loop.Block{Type: loop.BlockToolResult, ToolUseID: id, Text: text.String()}
		t.answers = id
		if b.toolRun {
			b.join(role, raw, []loop.Block{block})
		} else {
			b.start(loop.RoleUser, role, raw, []loop.Block{block})
			b.toolRun = true
		}
	default:
		return refuse(param+".role", codeInvalidValue, "Invalid value: '%s'. Supported values are: %s.", role, roleValues)
	}
	b.turns = append(b.turns, t)
	return nil
}

// start begins a loop message.
func (b *builder) start(role loop.Role, apiRole string, raw json.RawMessage, blocks []loop.Block) {
	b.msgs = append(b.msgs, loop.Message{ID: fmt.Sprintf("w%d", len(b.msgs)+1), Role: role, Blocks: blocks})
	b.roles = append(b.roles, apiRole)
	b.raws = append(b.raws, append([]byte(nil), raw...))
}

// join adds an API message to the last loop message.
func (b *builder) join(apiRole string, raw json.RawMessage, blocks []loop.Block) {
	n := len(b.msgs) - 1
	b.msgs[n].Blocks = append(b.msgs[n].Blocks, blocks...)
	b.roles[n] += "+" + apiRole
	b.raws[n] = append(append(b.raws[n], '\n'), raw...)
}

// content reads a message's content: a string, or an array of parts of
// the given types. Text parts become text blocks; other parts (images,
// audio, files) become text blocks carrying only their size. Absent or
// null content is refused unless optional.
func content(obj map[string]json.RawMessage, param string, optional bool, types ...string) ([]loop.Block, *wire.Rejection) {
	raw, ok := obj["content"]
	param += ".content"
	if !ok || wire.IsNull(raw) {
		if optional {
			return nil, nil
		}
		return nil, missing(param)
	}
	switch wire.ValueKind(raw) {
	case "a string":
		s, rej := str(raw, param)
		if rej != nil {
			return nil, rej
		}
		return []loop.Block{{Type: loop.BlockText, Text: s}}, nil
	case "an array":
	default:
		return nil, refuse(param, codeInvalidType, "Invalid type for '%s': expected one of a string or array of objects, but got %s instead.", param, wire.ValueKind(raw))
	}
	parts, rej := array(raw, param)
	if rej != nil {
		return nil, rej
	}
	if len(parts) == 0 {
		return nil, refuse(param, codeEmptyArray, "Invalid '%s': empty array. Expected an array with minimum length 1, but got an empty array instead.", param)
	}
	blocks := make([]loop.Block, 0, len(parts))
	for j, rp := range parts {
		pp := fmt.Sprintf("%s[%d]", param, j)
		p, rej := object(rp, pp)
		if rej != nil {
			return nil, rej
		}
		typ, rej := requiredString(p, "type", pp+".type")
		if rej != nil {
			return nil, rej
		}
		if !contains(types, typ) {
			return nil, refuse(pp+".type", codeInvalidValue, "Invalid value: '%s'. Supported values are: %s.", typ, quoteList(types))
		}
		switch typ {
		case "text", "refusal":
			text, rej := requiredString(p, typ, pp+"."+typ)
			if rej != nil {
				return nil, rej
			}
			blocks = append(blocks, loop.Block{Type: loop.BlockText, Text: text})
		default:
			blocks = append(blocks, loop.Block{Type: loop.BlockText, Tokens: wire.RawTokens(rp)})
		}
	}
	return blocks, nil
}

// assistant reads an assistant message: reasoning_content (an extension
// of OpenAI-compatible servers) as a thinking block, the content as
// text, each tool call as a tool_use block. It returns the tool calls'
// ids.
func assistant(obj map[string]json.RawMessage, param string) ([]loop.Block, []string, *wire.Rejection) {
	var blocks []loop.Block
	if raw, ok := obj["reasoning_content"]; ok && !wire.IsNull(raw) {
		r, rej := str(raw, param+".reasoning_content")
		if rej != nil {
			return nil, nil, rej
		}
		blocks = append(blocks, loop.Block{Type: loop.BlockThinking, Text: r})
	}
	text, rej := content(obj, param, true, "text", "refusal")
	if rej != nil {
		return nil, nil, rej
	}
	uses, ids, rej := toolCalls(obj, param)
	if rej != nil {
		return nil, nil, rej
	}
	if text == nil && len(uses) == 0 {
		if raw, ok := obj["function_call"]; !ok || wire.IsNull(raw) {
			return nil, nil, refuse(param+".content", "", "Invalid value for 'content': expected a string, got null.")
		}
	}
	for _, t := range text {
		if t.Text != "" || t.Tokens > 0 || len(uses) == 0 {
			blocks = append(blocks, t)
		}
	}
	return append(blocks, uses...), ids, nil
}

// toolCalls reads an assistant message's tool_calls as tool_use blocks
// whose input is the arguments string as sent (valid JSON or not).
func toolCalls(obj map[string]json.RawMessage, param string) ([]loop.Block, []string, *wire.Rejection) {
	raw, ok := obj["tool_calls"]
	if !ok || wire.IsNull(raw) {
		return nil, nil, nil
	}
	param += ".tool_calls"
	list, rej := array(raw, param)
	if rej != nil {
		return nil, nil, rej
	}
	var blocks []loop.Block
	var ids []string
	for j, rc := range list {
		cp := fmt.Sprintf("%s[%d]", param, j)
		c, rej := object(rc, cp)
		if rej != nil {
			return nil, nil, rej
		}
		id, rej := requiredString(c, "id", cp+".id")
		if rej != nil {
			return nil, nil, rej
		}
		if contains(ids, id) {
			return nil, nil, refuse(cp+".id", codeInvalidValue, "Invalid '%s': duplicate tool call id '%s'; each tool call of a message needs its own id.", cp+".id", id)
		}
		typ, rej := requiredString(c, "type", cp+".type")
		if rej != nil {
			return nil, nil, rej
		}
		input := "arguments"
		switch typ {
		case "function":
		case "custom":
			input = "input"
		default:
			return nil, nil, refuse(cp+".type", codeInvalidValue, "Invalid value: '%s'. Supported values are: 'function' and 'custom'.", typ)
		}
		fraw, ok := c[typ]
		if !ok || wire.IsNull(fraw) {
			return nil, nil, missing(cp + "." + typ)
		}
		f, rej := object(fraw, cp+"."+typ)
		if rej != nil {
			return nil, nil, rej
		}
		name, rej := requiredString(f, "name", cp+"."+typ+".name")
		if rej != nil {
			return nil, nil, rej
		}
		args, rej := requiredString(f, input, cp+"."+typ+"."+input)
		if rej != nil {
			return nil, nil, rej
		}
		blocks = append(blocks, loop.Block{Type: loop.BlockToolUse, ID: id, Name: name, Input: args})
		ids = append(ids, id)
	}
	return blocks, ids, nil
}

// checkPairing applies the API's tool rule: the tool calls of an
// assistant message are each answered by a tool message right after it
// (before any other message), and a tool message answers a call of the
// assistant message before its run of tool messages, once.
func checkPairing(turns []turn) *wire.Rejection {
	var pending []string
	owner := -1
	unanswered := func() *wire.Rejection {
		return refuse(fmt.Sprintf("messages.[%d].role", owner), "",
			"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. "+
				"The following tool_call_ids did not have response messages: %s", strings.Join(pending, ", "))
	}
	for i, t := range turns {
		if t.role == "tool" {
			k := index(pending, t.answers)
			if k < 0 {
				return refuse(fmt.Sprintf("messages.[%d].role", i), "",
					"Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'.")
			}
			pending = append(pending[:k], pending[k+1:]...)
			continue
		}
		if len(pending) > 0 {
			return unanswered()
		}
		pending, owner = append([]string(nil), t.calls...), i
	}
	if len(pending) > 0 {
		return unanswered()
	}
	return nil
}

func index(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

func contains(list []string, s string) bool { return index(list, s) >= 0 }

// quoteList is values as the API's refusals list them: 'a', 'b', and 'c'.
func quoteList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "'" + v + "'"
	}
	switch len(q) {
	case 1:
		return q[0]
	case 2:
		return q[0] + " and " + q[1]
	}
	return strings.Join(q[:len(q)-1], ", ") + ", and " + q[len(q)-1]
}
