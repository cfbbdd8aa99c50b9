package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// transcriptLine is what the reader needs of one line of a Claude Code
// transcript (JSON Lines, one content block per line).
type transcriptLine struct {
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

// block is a content block's type.
type block struct {
	Type string `json:"type"`
}

// ReadTranscript adds one Claude Code transcript to f, following the
// rules of the transcripts' README: lines of subagents (sidechains) are
// skipped; a response split over several lines is one call
// (deduplicated by message id); a call's context is input + cache
// creation + cache read; its output is the largest output_tokens over
// its lines.
func ReadTranscript(r io.Reader, f *Figures) error {
	type call struct {
		context, output, tools int
	}
	byID := map[string]*call{}
	// events in file order: a call (by id), a compaction, a user prompt
	type event struct {
		id        string
		compact   bool
		auto      bool
		preTokens int
		prompt    bool
	}
	var events []event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var l transcriptLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if l.IsSidechain {
			continue
		}
		switch {
		case l.Type == "assistant" && l.Message != nil && l.Message.Usage != nil && l.Message.Model != "<synthetic>":
			m := l.Message
			c, ok := byID[m.ID]
			if !ok {
				u := m.Usage
				c = &call{context: u.InputTokens + u.CacheCreation + u.CacheRead}
				byID[m.ID] = c
				events = append(events, event{id: m.ID})
			}
			c.output = max(c.output, m.Usage.OutputTokens)
			var blocks []block
			if json.Unmarshal(m.Content, &blocks) == nil {
				for _, b := range blocks {
					if b.Type == "tool_use" {
						c.tools++
					}
				}
			}
		case l.Type == "system" && l.Subtype == "compact_boundary" && l.CompactMetadata != nil:
			events = append(events, event{compact: true, auto: l.CompactMetadata.Trigger == "auto", preTokens: l.CompactMetadata.PreTokens})
		case l.Type == "user" && l.Message != nil && !l.IsMeta && !l.IsCompactSummary && isPrompt(l.Message.Content):
			events = append(events, event{prompt: true})
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	cs := calls{f: f}
	for _, e := range events {
		switch {
		case e.compact:
			cs.compaction(e.auto, e.preTokens)
		case e.prompt:
			cs.userPrompt()
		default:
			c := byID[e.id]
			cs.call(c.context, c.output, c.tools)
		}
	}
	cs.end()
	return nil
}

// isPrompt reports whether a user message's content is something the
// user typed: text, not tool results.
func isPrompt(content json.RawMessage) bool {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return true
	}
	var blocks []block
	if json.Unmarshal(content, &blocks) != nil || len(blocks) == 0 {
		return false
	}
	return !slices.ContainsFunc(blocks, func(b block) bool { return b.Type == "tool_result" })
}

// ReadTranscripts measures every Claude Code transcript under dir (the
// *.jsonl files of dir/claude-code/*/, subagent folders excluded).
func ReadTranscripts(dir string) (Figures, error) {
	var f Figures
	paths, err := filepath.Glob(filepath.Join(dir, "claude-code", "*", "*.jsonl"))
	if err != nil {
		return f, fmt.Errorf("transcripts: %w", err)
	}
	if len(paths) == 0 {
		return f, fmt.Errorf("transcripts: no Claude Code transcripts in %s", filepath.Join(dir, "claude-code"))
	}
	slices.Sort(paths)
	for _, p := range paths {
		if err := readTranscriptFile(p, &f); err != nil {
			return f, err
		}
	}
	return f, nil
}

func readTranscriptFile(path string, f *Figures) error {
	file, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("transcripts: %w", err)
	}
	defer file.Close()
	if err := ReadTranscript(file, f); err != nil {
		return fmt.Errorf("transcripts: %s: %w", path, err)
	}
	return nil
}
