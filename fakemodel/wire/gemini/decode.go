package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// body is a JSON object of a request as sent, read one field at a time.
type body map[string]json.RawMessage

// get is the field named camel or snake (the API takes both spellings,
// as proto JSON does); nil when neither is set.
func (b body) get(camel, snake string) json.RawMessage {
	if raw, ok := b[camel]; ok && !wire.IsNull(raw) {
		return raw
	}
	if raw, ok := b[snake]; ok && !wire.IsNull(raw) {
		return raw
	}
	return nil
}

// dataFields are the members of a part's "data" oneof, in the order a
// second one is reported: camelCase, snake_case.
var dataFields = [][2]string{
	{"text", "text"},
	{"functionCall", "function_call"},
	{"functionResponse", "function_response"},
	{"inlineData", "inline_data"},
	{"fileData", "file_data"},
	{"executableCode", "executable_code"},
	{"codeExecutionResult", "code_execution_result"},
	{"toolCall", "tool_call"},
	{"toolResponse", "tool_response"},
}

// Decode implements [wire.API]: it reads a generateContent (or
// countTokens) body and checks it as the API does. See the package
// documentation for what is read and refused.
func (API) Decode(rt wire.Route, raw []byte, opts wire.DecodeOptions) (*wire.Decoded, error) {
	if !utf8.Valid(raw) {
		return nil, refuse("Invalid JSON payload received. Invalid UTF-8 in string.")
	}
	var top body
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return nil, syntaxError(err, len(raw))
	}
	d := &wire.Decoded{Stream: rt.Stream}
	d.Request.Model = rt.Model
	d.Request.NonStreaming = !rt.Stream
	prefix := ""
	if rt.Endpoint == wire.EndpointCount {
		if inner := top.get("generateContentRequest", "generate_content_request"); inner != nil {
			obj, rej := object("generate_content_request", "GenerateContentRequest", inner)
			if rej != nil {
				return d, rej
			}
			top, prefix = obj, "generate_content_request."
		}
	}
	if rej := read(d, top, prefix, rt.Endpoint == wire.EndpointGenerate, opts); rej != nil {
		return d, rej
	}
	return d, nil
}

// read fills d from a request object whose field paths start with
// prefix; generate says the output cap is checked.
func read(d *wire.Decoded, top body, prefix string, generate bool, opts wire.DecodeOptions) *wire.Rejection {
	if raw := top.get("generationConfig", "generation_config"); raw != nil {
		cfg, rej := object(prefix+"generation_config", "GenerationConfig", raw)
		if rej != nil {
			return rej
		}
		n, rej := int32Field(prefix+"generation_config.max_output_tokens", body(cfg).get("maxOutputTokens", "max_output_tokens"))
		if rej != nil {
			return rej
		}
		d.Request.MaxTokens = n
	}
	items, rej := list(prefix+"contents", protoPrefix+"Content", top.get("contents", "contents"))
	if rej != nil {
		return rej
	}
	if len(items) == 0 {
		return refuse("* GenerateContentRequest.contents: contents is not specified")
	}
	turns := make([]turn, 0, len(items))
	for i, item := range items {
		t, rej := readContent(fmt.Sprintf("%scontents[%d]", prefix, i), i, item)
		if rej != nil {
			return rej
		}
		turns = append(turns, t)
	}
	if rej := pair(prefix, turns); rej != nil {
		return rej
	}
	msgs := make([]loop.Message, len(turns))
	for i, t := range turns {
		msgs[i] = t.msg
		d.Shapes = append(d.Shapes, wire.Shape(t.msg))
		d.Hashes = append(d.Hashes, wire.HashMessage(string(t.msg.Role), t.raw))
	}
	d.Request.Messages = msgs
	d.Request.Purpose = PurposeOf(msgs)
	if raw := top.get("systemInstruction", "system_instruction"); raw != nil {
		if _, rej := object(prefix+"system_instruction", "Content", raw); rej != nil {
			return rej
		}
		d.SystemTokens += wire.RawTokens(raw)
	}
	tools, rej := list(prefix+"tools", protoPrefix+"Tool", top.get("tools", "tools"))
	if rej != nil {
		return rej
	}
	for i, raw := range tools {
		names, rej := readTool(fmt.Sprintf("%stools[%d]", prefix, i), raw)
		if rej != nil {
			return rej
		}
		d.Request.Tools = append(d.Request.Tools, names...)
		d.SystemTokens += wire.RawTokens(raw)
	}
	var est loop.CharEstimator
	input := d.SystemTokens
	for i := range msgs {
		msgs[i].Tokens = est.Estimate(msgs[i])
		input += msgs[i].Tokens
	}
	d.Request.InputTokens = input
	if generate {
		return checkOutputCap(d.Request, opts.Models)
	}
	return nil
}

// checkOutputCap refuses maxOutputTokens outside 1 to the model's
// maximum, as the API words it; a model it does not know is checked
// only for a negative cap.
func checkOutputCap(r loop.Request, models []loop.ModelInfo) *wire.Rejection {
	limit := 0
	for _, m := range models {
		if m.Name == r.Model && m.MaxOutputTokens > 0 {
			limit = m.MaxOutputTokens
		}
	}
	if r.MaxTokens < 0 || limit > 0 && r.MaxTokens > limit {
		return refuse("Unable to submit request because it has a maxOutputTokens value of %d but the supported range is "+
			"from 1 (inclusive) to %d (exclusive). Update the value and try again.", r.MaxTokens, max(limit, 1)+1)
	}
	return nil
}

// turn is one content of a request: the message it reads as, and what
// pairing needs of it.
type turn struct {
	msg loop.Message
	raw json.RawMessage
	// calls and results index msg.Blocks' function calls and responses.
	calls, results []int
	// named marks the function calls and responses that carried an id.
	named map[int]bool
}

// readContent reads contents[i].
func readContent(path string, i int, raw json.RawMessage) (turn, *wire.Rejection) {
	t := turn{raw: raw, msg: loop.Message{ID: fmt.Sprintf("w%d", i+1)}, named: map[int]bool{}}
	obj, rej := object(path, "Content", raw)
	if rej != nil {
		return t, rej
	}
	role, rej := str(path+".role", body(obj).get("role", "role"))
	if rej != nil {
		return t, rej
	}
	switch role {
	case "user", "":
		t.msg.Role = loop.RoleUser
	case "model":
		t.msg.Role = loop.RoleAssistant
	default:
		return t, refuse("Please use a valid role: user, model.")
	}
	parts, rej := list(path+".parts", protoPrefix+"Part", body(obj).get("parts", "parts"))
	if rej != nil {
		return t, rej
	}
	if len(parts) == 0 {
		return t, refuse("* GenerateContentRequest.%s.parts: contents.parts must not be empty.", path)
	}
	for j, p := range parts {
		b, named, rej := readPart(fmt.Sprintf("%s.parts[%d]", path, j), t.msg.Role, p)
		if rej != nil {
			return t, rej
		}
		switch b.Type {
		case loop.BlockToolUse:
			if !named {
				b.ID = fmt.Sprintf("gemini_call_%d_%d", i+1, j+1)
			}
			t.calls = append(t.calls, len(t.msg.Blocks))
		case loop.BlockToolResult:
			t.results = append(t.results, len(t.msg.Blocks))
		}
		if named {
			t.named[len(t.msg.Blocks)] = true
		}
		t.msg.Blocks = append(t.msg.Blocks, b)
	}
	return t, nil
}

// readPart reads one part: text, a thought, a function call or
// response, or data the loop has no block for (an image, a file,
// executable code), which becomes a text block carrying only its size.
// named is whether a function call or response carried an id.
func readPart(path string, role loop.Role, raw json.RawMessage) (b loop.Block, named bool, rej *wire.Rejection) {
	obj, rej := object(path, "Part", raw)
	if rej != nil {
		return b, false, rej
	}
	p := body(obj)
	set := ""
	for _, f := range dataFields {
		if p.get(f[0], f[1]) == nil {
			continue
		}
		if set != "" {
			return b, false, refuse("Invalid JSON payload received. Oneof field 'data' is already set. Cannot set '%s'", f[0])
		}
		set = f[0]
	}
	thought, rej := boolean(path+".thought", p.get("thought", "thought"))
	if rej != nil {
		return b, false, rej
	}
	if sig := p.get("thoughtSignature", "thought_signature"); sig != nil {
		if rej := bytesField(path+".thought_signature", sig); rej != nil {
			return b, false, rej
		}
	}
	switch set {
	case "":
		return b, false, refuse("* GenerateContentRequest.%s.data: required oneof field 'data' must have one initialized field", path)
	case "text":
		text, rej := str(path+".text", p.get("text", "text"))
		if rej != nil {
			return b, false, rej
		}
		if thought {
			return loop.Block{Type: loop.BlockThinking, Text: text}, false, nil
		}
		return loop.Block{Type: loop.BlockText, Text: text}, false, nil
	case "functionCall":
		if role != loop.RoleAssistant {
			return b, false, refuse("Please ensure that function call parts are in model turns only: %s is a user turn's.", path)
		}
		return readCall(path+".function_call", p.get("functionCall", "function_call"))
	case "functionResponse":
		if role != loop.RoleUser {
			return b, false, refuse("Please ensure that function response parts are in user turns only: %s is a model turn's.", path)
		}
		return readResponse(path+".function_response", p.get("functionResponse", "function_response"))
	}
	return loop.Block{Type: loop.BlockText, Tokens: wire.RawTokens(raw)}, false, nil
}

// readCall reads a functionCall as a tool_use block: its id (when it
// has one), its name and its args as the input.
func readCall(path string, raw json.RawMessage) (loop.Block, bool, *wire.Rejection) {
	obj, rej := object(path, "FunctionCall", raw)
	if rej != nil {
		return loop.Block{}, false, rej
	}
	fc := body(obj)
	id, name, rej := idAndName(path, fc)
	if rej != nil {
		return loop.Block{}, false, rej
	}
	input := "{}"
	if args := fc.get("args", "args"); args != nil {
		if _, rej := object(path+".args", structType, args); rej != nil {
			return loop.Block{}, false, rej
		}
		input = compact(args)
	}
	return loop.Block{Type: loop.BlockToolUse, ID: id, Name: name, Input: input}, id != "", nil
}

// readResponse reads a functionResponse as a tool_result block. The
// result's text is the response's "output" when that is all it holds
// (an "error" alone marks an error result), else the response as JSON:
// the convention the API documents for function results.
func readResponse(path string, raw json.RawMessage) (loop.Block, bool, *wire.Rejection) {
	obj, rej := object(path, "FunctionResponse", raw)
	if rej != nil {
		return loop.Block{}, false, rej
	}
	fr := body(obj)
	id, name, rej := idAndName(path, fr)
	if rej != nil {
		return loop.Block{}, false, rej
	}
	b := loop.Block{Type: loop.BlockToolResult, ToolUseID: id, Name: name}
	resp := fr.get("response", "response")
	if resp == nil {
		return b, id != "", nil
	}
	out, rej := object(path+".response", structType, resp)
	if rej != nil {
		return loop.Block{}, false, rej
	}
	b.Text = compact(resp)
	if len(out) == 1 {
		for key, v := range out {
			var s string
			if (key == "output" || key == "error") && json.Unmarshal(v, &s) == nil {
				b.Text, b.IsError = s, key == "error"
			}
		}
	}
	return b, id != "", nil
}

// idAndName reads a function call's or response's id and its name,
// which the API requires.
func idAndName(path string, obj body) (string, string, *wire.Rejection) {
	id, rej := str(path+".id", obj.get("id", "id"))
	if rej != nil {
		return "", "", rej
	}
	name, rej := str(path+".name", obj.get("name", "name"))
	if rej != nil {
		return "", "", rej
	}
	if name == "" {
		return "", "", refuse("* GenerateContentRequest.%s.name: Name cannot be empty.", path)
	}
	return id, name, nil
}

// readTool reads one tool's function declarations and returns their
// names; a tool of another kind (search, code execution) declares none.
func readTool(path string, raw json.RawMessage) ([]string, *wire.Rejection) {
	obj, rej := object(path, "Tool", raw)
	if rej != nil {
		return nil, rej
	}
	decls, rej := list(path+".function_declarations", protoPrefix+"FunctionDeclaration",
		body(obj).get("functionDeclarations", "function_declarations"))
	if rej != nil {
		return nil, rej
	}
	names := make([]string, 0, len(decls))
	for j, raw := range decls {
		dp := fmt.Sprintf("%s.function_declarations[%d]", path, j)
		decl, rej := object(dp, "FunctionDeclaration", raw)
		if rej != nil {
			return nil, rej
		}
		name, rej := str(dp+".name", body(decl).get("name", "name"))
		if rej != nil {
			return nil, rej
		}
		if name == "" {
			return nil, refuse("* GenerateContentRequest.%s.name: Name cannot be empty.", dp)
		}
		names = append(names, name)
	}
	return names, nil
}

// compact is raw JSON without insignificant white space.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
