package responses

import (
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/responses"

	"github.com/loopsim/loopsim/loop"
)

// outcome collects what a response's items said.
type outcome struct {
	calls bool // a function call came
}

// add converts one output item into blocks; items the loop has no block
// for (a web search, a file search) give none.
func (o *outcome) add(it responses.ResponseOutputItemUnion) ([]loop.Block, error) {
	switch it.Type {
	case "message":
		var out []loop.Block
		for _, c := range it.AsMessage().Content {
			switch c.Type {
			case "output_text":
				out = append(out, loop.Block{Type: loop.BlockText, Text: c.Text})
			case "refusal":
				out = append(out, loop.Block{Type: loop.BlockText, Text: c.Refusal})
			}
		}
		return out, nil
	case "reasoning":
		r := it.AsReasoning()
		var sb strings.Builder
		for _, c := range r.Content {
			sb.WriteString(c.Text)
		}
		if sb.Len() == 0 {
			for _, s := range r.Summary {
				sb.WriteString(s.Text)
			}
		}
		return []loop.Block{{Type: loop.BlockThinking, Text: sb.String()}}, nil
	case "function_call":
		fc := it.AsFunctionCall()
		if fc.CallID == "" || fc.Name == "" {
			return nil, fmt.Errorf("function_call without call_id or name")
		}
		o.calls = true
		return []loop.Block{{Type: loop.BlockToolUse, ID: fc.CallID, Name: fc.Name, Input: fc.Arguments}}, nil
	}
	return nil, nil
}

// response is how r ended: its stop reason (see the package
// documentation) and usage.
func (o *outcome) response(r *responses.Response) loop.Response {
	stop := loop.StopEndTurn
	switch {
	case r.Status == responses.ResponseStatusIncomplete && r.IncompleteDetails.Reason == "max_output_tokens":
		stop = loop.StopMaxTokens
	case o.calls:
		stop = loop.StopToolUse
	}
	cached := int(r.Usage.InputTokensDetails.CachedTokens)
	return loop.Response{StopReason: stop, Usage: loop.Usage{
		InputTokens:          int(r.Usage.InputTokens) - cached,
		CacheReadInputTokens: cached,
		OutputTokens:         int(r.Usage.OutputTokens),
	}}
}
