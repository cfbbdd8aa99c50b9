package responses

import (
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/loopsim/loopsim/loop"
)

// params converts a loop request to the SDK's parameters.
func (m *Model) params(req loop.Request) (responses.ResponseNewParams, error) {
	if req.Model == "" {
		return responses.ResponseNewParams{}, fmt.Errorf("sdkmodel/responses: %s request has no model", req.Purpose)
	}
	if req.MaxTokens < 0 {
		return responses.ResponseNewParams{}, fmt.Errorf("sdkmodel/responses: %s request max_tokens %d is negative", req.Purpose, req.MaxTokens)
	}
	p := responses.ResponseNewParams{
		Model: req.Model,
		Store: openai.Bool(false),
	}
	if req.MaxTokens > 0 {
		p.MaxOutputTokens = openai.Int(int64(req.MaxTokens))
	}
	if m.cfg.Instructions != "" {
		p.Instructions = openai.String(m.cfg.Instructions)
	}
	items := make(responses.ResponseInputParam, 0, len(req.Messages))
	for i, msg := range req.Messages {
		its, err := inputItems(i, msg)
		if err != nil {
			return responses.ResponseNewParams{}, fmt.Errorf("sdkmodel/responses: message %d (%q): %w", i, msg.ID, err)
		}
		items = append(items, its...)
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	for _, name := range req.Tools {
		t, ok := m.cfg.Tools[name]
		if !ok {
			t = responses.FunctionToolParam{Parameters: map[string]any{"type": "object", "properties": map[string]any{}}, Strict: openai.Bool(false)}
		}
		t.Name = name
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: &t})
	}
	return p, nil
}

// inputItems converts message i into input items (see the package
// documentation).
func inputItems(i int, msg loop.Message) ([]responses.ResponseInputItemUnionParam, error) {
	switch msg.Role {
	case loop.RoleUser:
		return userItems(msg)
	case loop.RoleAssistant:
		return assistantItems(i, msg)
	}
	return nil, fmt.Errorf("role %q is neither user nor assistant", msg.Role)
}

// userItems: text blocks as one message item of input_text parts (a run
// of them each), tool results as function_call_output items.
func userItems(msg loop.Message) ([]responses.ResponseInputItemUnionParam, error) {
	var out []responses.ResponseInputItemUnionParam
	var texts responses.ResponseInputMessageContentListParam
	flush := func() {
		if len(texts) > 0 {
			out = append(out, responses.ResponseInputItemParamOfMessage(texts, responses.EasyInputMessageRoleUser))
			texts = nil
		}
	}
	for j, b := range msg.Blocks {
		switch b.Type {
		case loop.BlockText:
			texts = append(texts, responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: b.Text}})
		case loop.BlockToolResult:
			flush()
			out = append(out, toolOutput(b))
		default:
			return nil, fmt.Errorf("block %d: a %s block in a user message has no API form", j, b.Type)
		}
	}
	flush()
	if len(out) == 0 {
		out = append(out, responses.ResponseInputItemParamOfMessage("", responses.EasyInputMessageRoleUser))
	}
	return out, nil
}

// toolOutput is a tool_result as a function_call_output item.
func toolOutput(b loop.Block) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
		CallID: openai.String(b.ToolUseID),
		Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: openai.String(b.Text)},
	}}
}

// assistantItems: thinking blocks as reasoning items, a run of text
// blocks as one output message item, tool uses as function_call items.
// A message with no blocks is an output message with no content.
func assistantItems(i int, msg loop.Message) ([]responses.ResponseInputItemUnionParam, error) {
	var out []responses.ResponseInputItemUnionParam
	var texts []responses.ResponseOutputMessageContentUnionParam
	flush := func(force bool) {
		if len(texts) > 0 || force {
			if texts == nil {
				texts = []responses.ResponseOutputMessageContentUnionParam{}
			}
			out = append(out, responses.ResponseInputItemParamOfOutputMessage(texts, fmt.Sprintf("msg_%d_%d", i, len(out)), responses.ResponseOutputMessageStatusCompleted))
			texts = nil
		}
	}
	for j, b := range msg.Blocks {
		switch b.Type {
		case loop.BlockText:
			texts = append(texts, responses.ResponseOutputMessageContentUnionParam{OfOutputText: &responses.ResponseOutputTextParam{
				Text: b.Text, Annotations: []responses.ResponseOutputTextAnnotationUnionParam{}}})
		case loop.BlockThinking:
			flush(false)
			out = append(out, responses.ResponseInputItemUnionParam{OfReasoning: &responses.ResponseReasoningItemParam{
				ID: fmt.Sprintf("rs_%d_%d", i, len(out)), Summary: []responses.ResponseReasoningItemSummaryParam{},
				Content: []responses.ResponseReasoningItemContentParam{{Text: b.Text}}}})
		case loop.BlockToolUse:
			flush(false)
			out = append(out, responses.ResponseInputItemParamOfFunctionCall(b.Input, b.ID, b.Name))
		default:
			return nil, fmt.Errorf("block %d: a %s block in an assistant message has no API form", j, b.Type)
		}
	}
	flush(len(out) == 0)
	return out, nil
}
