package transcript

import "encoding/json"

// codexLine is what the reader needs of one line of a Codex rollout.
type codexLine struct {
	Type    string `json:"type"`
	Payload *struct {
		Type  string `json:"type"`
		Model string `json:"model"`
		Info  *struct {
			Total json.RawMessage `json:"total_token_usage"`
			Last  struct {
				Input     int `json:"input_tokens"`
				Cached    int `json:"cached_input_tokens"`
				Output    int `json:"output_tokens"`
				Reasoning int `json:"reasoning_output_tokens"`
			} `json:"last_token_usage"`
			Window int `json:"model_context_window"`
		} `json:"info"`
	} `json:"payload"`
}

// codexKinds are the line types of Codex rollouts.
var codexKinds = map[string]bool{"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true}

// codexReader turns Codex rollout lines into a session's events. A call
// is a token_count event whose total usage changed (each is logged
// twice); its tools are the tool calls logged since the previous call. A
// compaction's starting context is the last call's.
type codexReader struct {
	s     *Session
	model string
	total string // the last total_token_usage seen
	tools int    // tool calls since the last call
	last  int    // the last call's context
}

func (c *codexReader) line(l *codexLine) bool {
	if !codexKinds[l.Type] || l.Payload == nil && l.Type != "compacted" {
		return false
	}
	p := l.Payload
	switch l.Type {
	case "turn_context":
		if p.Model != "" {
			c.model = ModelName(p.Model)
		}
	case "session_meta":
		if p.Model != "" && c.model == "" {
			c.model = ModelName(p.Model)
		}
	case "compacted":
		c.s.Events = append(c.s.Events, Event{Kind: EventCompaction, Compaction: Compaction{Auto: true, PreTokens: c.last}})
	case "response_item":
		switch p.Type {
		case "function_call", "custom_tool_call", "local_shell_call", "web_search_call":
			c.tools++
		}
	case "event_msg":
		switch p.Type {
		case "user_message":
			c.s.Events = append(c.s.Events, Event{Kind: EventPrompt})
		case "token_count":
			c.tokenCount(l)
		}
	}
	return true
}

func (c *codexReader) tokenCount(l *codexLine) {
	info := l.Payload.Info
	if info == nil || string(info.Total) == c.total {
		return
	}
	c.total = string(info.Total)
	if info.Window > 0 {
		c.s.Window = info.Window
	}
	u := info.Last
	call := Call{Model: c.model, Tools: c.tools,
		Usage: Usage{Input: max(u.Input-u.Cached, 0), CacheRead: min(u.Cached, u.Input), Output: u.Output,
			Reasoning: min(max(u.Reasoning, 0), u.Output)}}
	c.s.Events = append(c.s.Events, Event{Kind: EventCall, Call: call})
	c.tools, c.last = 0, call.Usage.Context()
}
