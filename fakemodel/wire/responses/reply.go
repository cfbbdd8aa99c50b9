package responses

import (
	"fmt"
	"strings"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// The statuses of a response and of its items.
const (
	statusCompleted  = "completed"
	statusIncomplete = "incomplete"
	statusInProgress = "in_progress"
	statusFailed     = "failed"
)

// usageJSON is the API's usage object.
type usageJSON struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

// usageOf is the loop's usage as the API reports it: input_tokens counts
// every input token, cached_tokens the cache reads among them.
func usageOf(u loop.Usage) *usageJSON {
	in := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
	out := &usageJSON{InputTokens: in, OutputTokens: u.OutputTokens, TotalTokens: in + u.OutputTokens}
	out.InputTokensDetails.CachedTokens = u.CacheReadInputTokens
	return out
}

// textPart is a message item's output_text part.
type textPart struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
	Logprobs    []any  `json:"logprobs"`
}

func outputText(text string) textPart {
	return textPart{Type: "output_text", Text: text, Annotations: []any{}, Logprobs: []any{}}
}

// reasoningPart is a reasoning item's content part.
type reasoningPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// itemJSON is an output item: a message, a reasoning item, a function
// call, or a compaction; the fields of the others are left out.
type itemJSON struct {
	Type             string           `json:"type"`
	ID               string           `json:"id"`
	Status           string           `json:"status,omitempty"`
	Role             string           `json:"role,omitempty"`
	Content          any              `json:"content,omitempty"`
	Summary          *[]reasoningPart `json:"summary,omitempty"`
	CallID           string           `json:"call_id,omitempty"`
	Name             string           `json:"name,omitempty"`
	Arguments        *string          `json:"arguments,omitempty"`
	EncryptedContent *string          `json:"encrypted_content,omitempty"`
}

// itemID is the id of output item i of response seq.
func itemID(prefix string, seq, i int) string {
	return fmt.Sprintf("%s_loopsim_%06d_%d", prefix, seq, i)
}

// responseID is the id of the response to request seq.
func responseID(seq int) string { return fmt.Sprintf("resp_loopsim_%06d", seq) }

// item is block i of response seq as an output item, whole, with status.
func item(seq, i int, b loop.Block, status string) itemJSON {
	switch b.Type {
	case loop.BlockThinking:
		return itemJSON{Type: "reasoning", ID: itemID("rs", seq, i), Status: status,
			Summary: &[]reasoningPart{}, Content: []reasoningPart{{Type: "reasoning_text", Text: b.Text}}}
	case loop.BlockToolUse:
		args := b.Input
		return itemJSON{Type: "function_call", ID: itemID("fc", seq, i), Status: status,
			CallID: b.ID, Name: b.Name, Arguments: &args}
	}
	return itemJSON{Type: "message", ID: itemID("msg", seq, i), Status: status, Role: "assistant",
		Content: []textPart{outputText(b.Text)}}
}

// started is block i as response.output_item.added announces it: empty,
// in progress.
func started(seq, i int, b loop.Block) itemJSON {
	it := item(seq, i, b, statusInProgress)
	switch b.Type {
	case loop.BlockThinking:
		it.Content = []reasoningPart{}
	case loop.BlockToolUse:
		empty := ""
		it.Arguments = &empty
	default:
		it.Content = []textPart{}
	}
	return it
}

// errorJSON is a failed response's error.
type errorJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// incompleteJSON says why a response is incomplete.
type incompleteJSON struct {
	Reason string `json:"reason"`
}

// responseJSON is the API's response object.
type responseJSON struct {
	ID                 string          `json:"id"`
	Object             string          `json:"object"`
	CreatedAt          int64           `json:"created_at"`
	Status             string          `json:"status"`
	Error              *errorJSON      `json:"error"`
	IncompleteDetails  *incompleteJSON `json:"incomplete_details"`
	Instructions       *string         `json:"instructions"`
	MaxOutputTokens    *int            `json:"max_output_tokens"`
	Model              string          `json:"model"`
	Output             []itemJSON      `json:"output"`
	ParallelToolCalls  bool            `json:"parallel_tool_calls"`
	PreviousResponseID *string         `json:"previous_response_id"`
	Store              bool            `json:"store"`
	Temperature        float64         `json:"temperature"`
	Text               map[string]any  `json:"text"`
	ToolChoice         string          `json:"tool_choice"`
	Tools              []any           `json:"tools"`
	TopP               float64         `json:"top_p"`
	Truncation         string          `json:"truncation"`
	Usage              *usageJSON      `json:"usage"`
	Metadata           map[string]any  `json:"metadata"`
}

// response is the response object for a: in progress (no output, no
// usage) as response.created announces it, or finished with the given
// output.
func response(d *wire.Decoded, a *wire.Answer, status string, output []itemJSON) responseJSON {
	r := responseJSON{ID: responseID(a.Seq), Object: "response", Status: status, Model: d.Request.Model,
		Output: output, ParallelToolCalls: true, Temperature: 1, TopP: 1, Truncation: "disabled",
		Text: map[string]any{"format": map[string]any{"type": "text"}}, ToolChoice: "auto",
		Tools: []any{}, Metadata: map[string]any{}}
	if r.Output == nil {
		r.Output = []itemJSON{}
	}
	if d.Request.MaxTokens > 0 {
		n := d.Request.MaxTokens
		r.MaxOutputTokens = &n
	}
	switch status {
	case statusCompleted, statusIncomplete:
		r.Usage = usageOf(a.Response.Usage)
	}
	if status == statusIncomplete {
		r.IncompleteDetails = &incompleteJSON{Reason: "max_output_tokens"}
	}
	return r
}

// finalStatus is how a reply ends: incomplete when the model stopped at
// its output cap.
func finalStatus(a *wire.Answer) string {
	if a.Response.StopReason == loop.StopMaxTokens {
		return statusIncomplete
	}
	return statusCompleted
}

// items is every block as a finished output item; in an incomplete
// response the last one is incomplete.
func items(a *wire.Answer, status string) []itemJSON {
	out := make([]itemJSON, 0, len(a.Blocks))
	for i, b := range a.Blocks {
		st := statusCompleted
		if status == statusIncomplete && i == len(a.Blocks)-1 {
			st = statusIncomplete
		}
		out = append(out, item(a.Seq, i, b, st))
	}
	return out
}

// Reply implements [wire.API]: the response object, or for
// /v1/responses/compact the compaction object.
func (API) Reply(d *wire.Decoded, a *wire.Answer) any {
	if Compact(d) {
		return compacted(d, a)
	}
	st := finalStatus(a)
	return response(d, a, st, items(a, st))
}

// compactedJSON is the API's compaction object.
type compactedJSON struct {
	ID        string     `json:"id"`
	Object    string     `json:"object"`
	CreatedAt int64      `json:"created_at"`
	Output    []any      `json:"output"`
	Usage     *usageJSON `json:"usage"`
}

// inputMessage is a user message item as the compaction object returns it.
type inputMessage struct {
	Type    string      `json:"type"`
	ID      string      `json:"id"`
	Status  string      `json:"status"`
	Role    string      `json:"role"`
	Content []inputText `json:"content"`
}

type inputText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// compacted is the compaction object: the input's user messages (their
// text), then one compaction item carrying the model's text.
func compacted(d *wire.Decoded, a *wire.Answer) compactedJSON {
	c := compactedJSON{ID: itemID("cmp", a.Seq, 0), Object: "response.compaction", Output: []any{},
		Usage: usageOf(a.Response.Usage)}
	for i, m := range d.Request.Messages {
		if m.Role != loop.RoleUser || m.Text() == "" {
			continue
		}
		var parts []inputText
		for _, b := range m.Blocks {
			if b.Type == loop.BlockText {
				parts = append(parts, inputText{Type: "input_text", Text: b.Text})
			}
		}
		c.Output = append(c.Output, inputMessage{Type: "message", ID: itemID("msg", a.Seq, i), Status: statusCompleted,
			Role: "user", Content: parts})
	}
	var summary strings.Builder
	for _, b := range a.Blocks {
		if b.Type == loop.BlockText {
			summary.WriteString(b.Text)
		}
	}
	s := summary.String()
	c.Output = append(c.Output, itemJSON{Type: "compaction", ID: itemID("cmp", a.Seq, 1), EncryptedContent: &s})
	return c
}
