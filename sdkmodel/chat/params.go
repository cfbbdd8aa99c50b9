package chat

import (
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/loopsim/loopsim/loop"
)

// params converts a loop request to the SDK's parameters.
func (m *Model) params(req loop.Request) (openai.ChatCompletionNewParams, error) {
	if req.Model == "" {
		return openai.ChatCompletionNewParams{}, fmt.Errorf("sdkmodel/chat: %s request has no model", req.Purpose)
	}
	if req.MaxTokens < 0 {
		return openai.ChatCompletionNewParams{}, fmt.Errorf("sdkmodel/chat: %s request max_tokens %d is negative", req.Purpose, req.MaxTokens)
	}
	p := openai.ChatCompletionNewParams{Model: req.Model}
	if req.MaxTokens > 0 {
		p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	}
	if m.cfg.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(m.cfg.System))
	}
	for i, msg := range req.Messages {
		ms, err := messages(msg)
		if err != nil {
			return openai.ChatCompletionNewParams{}, fmt.Errorf("sdkmodel/chat: message %d (%q): %w", i, msg.ID, err)
		}
		p.Messages = append(p.Messages, ms...)
	}
	for _, name := range req.Tools {
		f, ok := m.cfg.Tools[name]
		if !ok {
			f = openai.FunctionDefinitionParam{Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{}}}
		}
		f.Name = name
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(f))
	}
	return p, nil
}

// messages converts one loop message into the API's: an assistant
// message is one message (its text as content, its tool_use blocks as
// tool calls whose arguments are the input as the model wrote it;
// thinking is left out, as the API takes no reasoning back); a user
// message is a tool message per tool_result, then a user message with
// its text, if it has any.
func messages(msg loop.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	var texts []string
	var results []openai.ChatCompletionMessageParamUnion
	var calls []openai.ChatCompletionMessageToolCallUnionParam
	for j, b := range msg.Blocks {
		switch b.Type {
		case loop.BlockText:
			texts = append(texts, b.Text)
		case loop.BlockThinking:
		case loop.BlockToolUse:
			if msg.Role != loop.RoleAssistant {
				return nil, fmt.Errorf("block %d: a tool_use in a %s message", j, msg.Role)
			}
			calls = append(calls, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID: b.ID, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: b.Input}}})
		case loop.BlockToolResult:
			if msg.Role != loop.RoleUser {
				return nil, fmt.Errorf("block %d: a tool_result in a %s message", j, msg.Role)
			}
			results = append(results, openai.ToolMessage(b.Text, b.ToolUseID))
		default:
			return nil, fmt.Errorf("block %d: type %q has no API form", j, b.Type)
		}
	}
	switch msg.Role {
	case loop.RoleAssistant:
		a := openai.ChatCompletionAssistantMessageParam{ToolCalls: calls}
		if len(texts) > 0 || len(calls) == 0 {
			a.Content.OfString = openai.String(strings.Join(texts, ""))
		}
		return []openai.ChatCompletionMessageParamUnion{{OfAssistant: &a}}, nil
	case loop.RoleUser:
		if len(texts) > 0 || len(results) == 0 {
			results = append(results, userText(texts))
		}
		return results, nil
	}
	return nil, fmt.Errorf("role %q is neither user nor assistant", msg.Role)
}

// userText is a user message with texts: one string, or one text part
// each.
func userText(texts []string) openai.ChatCompletionMessageParamUnion {
	if len(texts) <= 1 {
		return openai.UserMessage(strings.Join(texts, ""))
	}
	parts := make([]openai.ChatCompletionContentPartUnionParam, len(texts))
	for i, t := range texts {
		parts[i] = openai.TextContentPart(t)
	}
	return openai.UserMessage(parts)
}
