package loop

import "fmt"

// Role says who a message is from.
type Role string

// The two roles of the conversation.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// BlockType is the kind of a content block.
type BlockType string

// The content block kinds the loop understands.
const (
	BlockText       BlockType = "text"
	BlockThinking   BlockType = "thinking"
	BlockToolUse    BlockType = "tool_use"
	BlockToolResult BlockType = "tool_result"
)

// Block is one content block of a message.
type Block struct {
	// Type is the block kind.
	Type BlockType `json:"type"`
	// Text is the text of a text, thinking or tool_result block.
	Text string `json:"text,omitempty"`
	// ID identifies a tool_use block.
	ID string `json:"id,omitempty"`
	// Name is the tool a tool_use block calls.
	Name string `json:"name,omitempty"`
	// Input is the raw JSON input of a tool_use block. It may be malformed
	// (a truncated reply cuts it).
	Input string `json:"input,omitempty"`
	// ToolUseID is the tool_use a tool_result block answers.
	ToolUseID string `json:"tool_use_id,omitempty"`
	// IsError marks a tool_result that reports a failure.
	IsError bool `json:"is_error,omitempty"`
	// Tokens is the block's size in tokens when known; zero means "estimate
	// from the text".
	Tokens int `json:"tokens,omitempty"`
}

// Usage is what the model reports for one response.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens,omitempty"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens,omitempty"`
}

// Context is the context size the usage describes: every input token plus
// the output that now sits in the history.
func (u Usage) Context() int {
	return u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens + u.OutputTokens
}

// Message is one entry of the conversation history.
type Message struct {
	// ID is unique within a run. The loop assigns IDs to messages that have
	// none, in order, so IDs are deterministic.
	ID string `json:"id"`
	// Role is who the message is from.
	Role Role `json:"role"`
	// Blocks is the content.
	Blocks []Block `json:"blocks,omitempty"`
	// Tokens is the message's size in tokens: the model's reported output
	// for an assistant reply, otherwise the estimator's figure. The loop
	// fills it when it is zero.
	Tokens int `json:"tokens"`
	// Usage is the model's report for the response that produced this
	// assistant message, when there was one.
	Usage *Usage `json:"usage,omitempty"`
	// Model is the model that produced an assistant message.
	Model string `json:"model,omitempty"`
	// StopReason is why the model stopped producing this message.
	StopReason StopReason `json:"stop_reason,omitempty"`

	// Meta marks a message the loop injected for the model (a recovery
	// nudge, hook feedback) rather than one the user typed.
	Meta bool `json:"meta,omitempty"`
	// APIError marks an assistant message that reports an API error.
	APIError bool `json:"api_error,omitempty"`
	// CompactBoundary marks the boundary a compaction or snip leaves.
	CompactBoundary bool `json:"compact_boundary,omitempty"`
	// CompactSummary marks the summary that replaces compacted history.
	CompactSummary bool `json:"compact_summary,omitempty"`
	// Synthetic marks a message the loop made up in place of a real one
	// (an interrupted tool result, an error notice).
	Synthetic bool `json:"synthetic,omitempty"`
}

// Text returns the concatenated text of the message's text blocks.
func (m Message) Text() string {
	s := ""
	for bi := range m.Blocks {
		b := &m.Blocks[bi]
		if b.Type == BlockText {
			s += b.Text
		}
	}
	return s
}

// ToolUses returns the message's tool_use blocks.
func (m Message) ToolUses() []Block {
	n := 0
	for bi := range m.Blocks {
		b := &m.Blocks[bi]
		if b.Type == BlockToolUse {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return appendToolUses(make([]Block, 0, n), m.Blocks)
}

// appendToolUses appends the tool_use blocks of blocks to out.
func appendToolUses(out, blocks []Block) []Block {
	for bi := range blocks {
		b := &blocks[bi]
		if b.Type == BlockToolUse {
			out = append(out, *b)
		}
	}
	return out
}

// IsToolResult reports whether the message carries tool_result blocks.
func (m Message) IsToolResult() bool {
	for bi := range m.Blocks {
		b := &m.Blocks[bi]
		if b.Type == BlockToolResult {
			return true
		}
	}
	return false
}

// Kind is a short description of the message used in traces:
// "user", "user:meta", "user:tool_result", "user:compact_summary",
// "assistant", "assistant:api_error", "boundary".
func (m Message) Kind() string {
	user := m.Role == RoleUser
	switch {
	case m.CompactBoundary:
		return "boundary"
	case m.CompactSummary:
		return pick(user, "user:compact_summary", "assistant:compact_summary")
	case m.APIError:
		return pick(user, "user:api_error", "assistant:api_error")
	case m.IsToolResult():
		return pick(user, "user:tool_result", "assistant:tool_result")
	case m.Meta:
		return pick(user, "user:meta", "assistant:meta")
	}
	return string(m.Role)
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// UserText returns a plain user message.
func UserText(text string) Message {
	return Message{Role: RoleUser, Blocks: []Block{{Type: BlockText, Text: text}}}
}

// validateBlock checks the shape of one content block.
func validateBlock(b *Block) error {
	if err := checkSize("tokens", b.Tokens); err != nil {
		return err
	}
	switch b.Type {
	case BlockText, BlockThinking:
	case BlockToolUse:
		if b.ID == "" {
			return fmt.Errorf("tool_use has an empty id")
		}
		if b.Name == "" {
			return fmt.Errorf("tool_use %q has an empty name", b.ID)
		}
	case BlockToolResult:
		if b.ToolUseID == "" {
			return fmt.Errorf("tool_result has an empty tool_use_id")
		}
	default:
		return fmt.Errorf("unknown block type %q", b.Type)
	}
	return nil
}
