package sdkmodel

import (
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/loopsim/loopsim/loop"
)

// params converts a loop request to the SDK's parameters.
func (m *Model) params(req loop.Request) (anthropic.MessageNewParams, error) {
	if req.Model == "" {
		return anthropic.MessageNewParams{}, fmt.Errorf("sdkmodel: %s request has no model", req.Purpose)
	}
	if req.MaxTokens <= 0 {
		return anthropic.MessageNewParams{}, fmt.Errorf("sdkmodel: %s request max_tokens %d is not positive", req.Purpose, req.MaxTokens)
	}
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(req.Model),
		MaxTokens: int64(req.MaxTokens),
		Messages:  make([]anthropic.MessageParam, 0, len(req.Messages)),
	}
	if m.cfg.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: m.cfg.System}}
	}
	if b := m.cfg.ThinkingBudget; b > 0 && req.MaxTokens > b {
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(int64(b))
	}
	for i, msg := range req.Messages {
		mp, err := m.message(msg)
		if err != nil {
			return anthropic.MessageNewParams{}, fmt.Errorf("sdkmodel: message %d (%q): %w", i, msg.ID, err)
		}
		p.Messages = append(p.Messages, mp)
	}
	for _, name := range req.Tools {
		t, ok := m.cfg.Tools[name]
		if !ok {
			t = anthropic.ToolParam{InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{}}}
		}
		t.Name = name
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: &t})
	}
	return p, nil
}

// message converts one loop message.
func (m *Model) message(msg loop.Message) (anthropic.MessageParam, error) {
	blocks := make([]anthropic.ContentBlockParamUnion, 0, len(msg.Blocks))
	for j, b := range msg.Blocks {
		switch b.Type {
		case loop.BlockText:
			blocks = append(blocks, anthropic.NewTextBlock(b.Text))
		case loop.BlockThinking:
			blocks = append(blocks, anthropic.NewThinkingBlock(m.signature(b.Text), b.Text))
		case loop.BlockToolUse:
			blocks = append(blocks, anthropic.NewToolUseBlock(b.ID, toolInput(b.Input), b.Name))
		case loop.BlockToolResult:
			r := anthropic.ToolResultBlockParam{ToolUseID: b.ToolUseID}
			if b.IsError {
				r.IsError = anthropic.Bool(true)
			}
			if b.Text != "" {
				r.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: b.Text}}}
			}
			blocks = append(blocks, anthropic.ContentBlockParamUnion{OfToolResult: &r})
		default:
			return anthropic.MessageParam{}, fmt.Errorf("block %d: type %q has no API form", j, b.Type)
		}
	}
	switch msg.Role {
	case loop.RoleUser:
		return anthropic.NewUserMessage(blocks...), nil
	case loop.RoleAssistant:
		return anthropic.NewAssistantMessage(blocks...), nil
	}
	return anthropic.MessageParam{}, fmt.Errorf("role %q is neither user nor assistant", msg.Role)
}

// toolInput is a tool_use block's input as the API takes it: the raw JSON
// object, or {} when the input is not one (a truncated reply cut it).
func toolInput(raw string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return json.RawMessage(raw)
}
