package gemini

import (
	"encoding/json"
	"fmt"

	"google.golang.org/genai"

	"github.com/loopsim/loopsim/loop"
)

// params converts a loop request to the SDK's contents and config.
func (m *Model) params(req loop.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	if req.Model == "" {
		return nil, nil, fmt.Errorf("sdkmodel/gemini: %s request has no model", req.Purpose)
	}
	if req.MaxTokens < 0 {
		return nil, nil, fmt.Errorf("sdkmodel/gemini: %s request max_tokens %d is negative", req.Purpose, req.MaxTokens)
	}
	no := false
	cfg := &genai.GenerateContentConfig{MaxOutputTokens: int32(min(req.MaxTokens, 1<<31-1)), AutomaticContinuation: &no}
	if m.cfg.System != "" {
		cfg.SystemInstruction = genai.NewContentFromText(m.cfg.System, genai.RoleUser)
	}
	if len(req.Tools) > 0 {
		tool := &genai.Tool{}
		for _, name := range req.Tools {
			d := &genai.FunctionDeclaration{Name: name}
			if def, ok := m.cfg.Tools[name]; ok && def != nil {
				c := *def
				c.Name = name
				d = &c
			}
			tool.FunctionDeclarations = append(tool.FunctionDeclarations, d)
		}
		cfg.Tools = []*genai.Tool{tool}
	}
	names := map[string]string{}
	for _, msg := range req.Messages {
		for _, b := range msg.Blocks {
			if b.Type == loop.BlockToolUse {
				names[b.ID] = b.Name
			}
		}
	}
	contents := make([]*genai.Content, 0, len(req.Messages))
	for i, msg := range req.Messages {
		c, err := m.content(msg, names)
		if err != nil {
			return nil, nil, fmt.Errorf("sdkmodel/gemini: message %d (%q): %w", i, msg.ID, err)
		}
		contents = append(contents, c)
	}
	return contents, cfg, nil
}

// content converts one loop message: text, thoughts (with the signature
// they came with), function calls (with theirs) and function responses
// ({"output": text}, or {"error": text} for an error result, the API's
// convention).
func (m *Model) content(msg loop.Message, names map[string]string) (*genai.Content, error) {
	c := &genai.Content{}
	switch msg.Role {
	case loop.RoleUser:
		c.Role = genai.RoleUser
	case loop.RoleAssistant:
		c.Role = genai.RoleModel
	default:
		return nil, fmt.Errorf("role %q is neither user nor assistant", msg.Role)
	}
	for j, b := range msg.Blocks {
		switch b.Type {
		case loop.BlockText:
			c.Parts = append(c.Parts, &genai.Part{Text: b.Text})
		case loop.BlockThinking:
			c.Parts = append(c.Parts, &genai.Part{Text: b.Text, Thought: true, ThoughtSignature: m.signature("thought:" + b.Text)})
		case loop.BlockToolUse:
			c.Parts = append(c.Parts, &genai.Part{FunctionCall: &genai.FunctionCall{ID: b.ID, Name: b.Name, Args: args(b.Input)},
				ThoughtSignature: m.signature("call:" + b.ID)})
		case loop.BlockToolResult:
			name, ok := names[b.ToolUseID]
			if !ok {
				return nil, fmt.Errorf("block %d: tool_result for %q answers no tool_use of the request", j, b.ToolUseID)
			}
			key := "output"
			if b.IsError {
				key = "error"
			}
			c.Parts = append(c.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: b.ToolUseID, Name: name,
				Response: map[string]any{key: b.Text}}})
		default:
			return nil, fmt.Errorf("block %d: type %q has no API form", j, b.Type)
		}
	}
	return c, nil
}

// args is a tool_use's input as a call's args: the JSON object, or
// none when the input is not one (a truncated reply cut it).
func args(raw string) map[string]any {
	var obj map[string]any
	if json.Unmarshal([]byte(raw), &obj) != nil {
		return nil
	}
	return obj
}
