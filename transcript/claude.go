package transcript

import (
	"encoding/json"
)

// claudeLine is what the reader needs of one line of a Claude Code
// session log.
type claudeLine struct {
	Type             string `json:"type"`
	Subtype          string `json:"subtype"`
	IsSidechain      bool   `json:"isSidechain"`
	IsMeta           bool   `json:"isMeta"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	CompactMetadata  *struct {
		Trigger   string `json:"trigger"`
		PreTokens int    `json:"preTokens"`
	} `json:"compactMetadata"`
	Message *struct {
		ID      string          `json:"id"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
		Usage   *struct {
			InputTokens   int `json:"input_tokens"`
			CacheCreation int `json:"cache_creation_input_tokens"`
			CacheRead     int `json:"cache_read_input_tokens"`
			OutputTokens  int `json:"output_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// claudeKinds are the line types of Claude Code logs; those other than
// user, assistant and system carry nothing the reader needs.
var claudeKinds = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true, "progress": true,
	"file-history-snapshot": true, "queue-operation": true, "attachment": true, "result": true,
}

// contentBlock is what the reader needs of a content block.
type contentBlock struct {
	Type  string `json:"type"`
	Text  string `json:"text"`
	Name  string `json:"name"`
	Input struct {
		FilePath string `json:"file_path"`
	} `json:"input"`
}

// claudeReader turns Claude Code lines into a session's events. A
// response split over several lines (one content block each) is one call,
// deduplicated by message id; its output is the largest output_tokens
// over its lines.
type claudeReader struct {
	s    *Session
	byID map[string]int  // message id -> index of its call event
	read map[string]bool // files read so far
}

func newClaudeReader(s *Session) *claudeReader {
	return &claudeReader{s: s, byID: map[string]int{}, read: map[string]bool{}}
}

// line reads one decoded line; it reports false for a line of no known
// kind.
func (c *claudeReader) line(l *claudeLine) bool {
	if !claudeKinds[l.Type] {
		return false
	}
	if l.IsSidechain {
		c.s.Sidechain++
		return true
	}
	switch {
	case l.Type == "assistant" && l.Message != nil && l.Message.Usage != nil && l.Message.Model != "<synthetic>":
		c.call(l)
	case l.Type == "system" && l.Subtype == "compact_boundary" && l.CompactMetadata != nil:
		c.s.Events = append(c.s.Events, Event{Kind: EventCompaction,
			Compaction: Compaction{Auto: l.CompactMetadata.Trigger == "auto", PreTokens: l.CompactMetadata.PreTokens}})
	case l.Type == "user" && l.Message != nil && !l.IsCompactSummary:
		c.user(l)
	}
	return true
}

func (c *claudeReader) call(l *claudeLine) {
	m := l.Message
	i, ok := c.byID[m.ID]
	if !ok || m.ID == "" {
		u := m.Usage
		c.s.Events = append(c.s.Events, Event{Kind: EventCall, Call: Call{Model: ModelName(m.Model),
			Usage: Usage{Input: u.InputTokens, CacheWrite: u.CacheCreation, CacheRead: u.CacheRead}}})
		i = len(c.s.Events) - 1
		c.byID[m.ID] = i
	}
	call := &c.s.Events[i].Call
	call.Usage.Output = max(call.Usage.Output, m.Usage.OutputTokens)
	var blocks []contentBlock
	if json.Unmarshal(m.Content, &blocks) != nil {
		return
	}
	for _, b := range blocks {
		if b.Type != "tool_use" {
			continue
		}
		call.Tools++
		if b.Name == "Read" && b.Input.FilePath != "" {
			if c.read[b.Input.FilePath] {
				call.Rereads++
			}
			c.read[b.Input.FilePath] = true
		}
	}
}

// user classifies a user line: a tool result, an injected line or a
// prompt.
func (c *claudeReader) user(l *claudeLine) {
	text, isText := userText(l.Message.Content)
	if !isText {
		return // tool results
	}
	if l.IsMeta {
		c.s.Injected[Meta]++
		return
	}
	if k, ok := Classify(text); ok {
		c.s.Injected[k]++
		return
	}
	c.s.Events = append(c.s.Events, Event{Kind: EventPrompt})
}

// userText is the text of a user message whose content is a string or
// text blocks; isText is false for tool results and empty content.
func userText(content json.RawMessage) (text string, isText bool) {
	if json.Unmarshal(content, &text) == nil {
		return text, true
	}
	var blocks []contentBlock
	if json.Unmarshal(content, &blocks) != nil || len(blocks) == 0 {
		return "", false
	}
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			return "", false
		case "text":
			if text == "" {
				text = b.Text
			}
		}
	}
	return text, true
}
