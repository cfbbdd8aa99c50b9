package fakemodel

import (
	"fmt"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/loop/looptest"
	"github.com/stretchr/testify/assert"
)

// Every fake honours the contract of the seam it stands in for.

func TestModelConformance(t *testing.T) {
	scripts := map[string][]Step{
		"tool, prompt-too-long, text": {
			{ToolUses: []ToolUse{{Name: "Read", Input: `{"path":"a.go"}`}}},
			{Kind: PromptTooLong},
			{Text: "<summary>read a.go</summary>"},
			{Text: "done"},
		},
		"endless tool use": {{ToolUses: []ToolUse{{Name: "Read"}, {Name: "Grep"}}, Repeat: Forever}},
		"branches": {{
			Repeat: Forever,
			If:     MustCondition("purpose == compact"),
			Then:   &Step{Text: "<summary>s</summary>"},
			Else:   &Step{If: MustCondition("input_tokens > 1000"), Then: &Step{Kind: PromptTooLong}, Else: &Step{Kind: Truncated}},
		}},
		"stream error then abort": {
			{Kind: StreamError, Text: "partial", After: 2},
			{Kind: Abort, After: 1},
		},
		"empty": {},
	}
	for _, k := range Kinds { // every kind, then a reply
		s := Step{Kind: k}
		switch k {
		case Reply:
			s.Thinking, s.Text = "think", "answer"
		case OtherStatus:
			s.Status = 418
		case Truncated:
			s.ToolUses = []ToolUse{{Name: "Write", Input: `{"content":"long"}`}}
		case StreamError, Abort:
			s.After = 2
		}
		scripts["kind "+string(k)] = []Step{s, {Text: "after"}}
	}
	for name, script := range scripts {
		t.Run(name, func(t *testing.T) {
			assert.NoError(t, looptest.CheckModel(func() loop.Model { return &Model{Window: 200_000, Script: script} }))
		})
	}
}

func TestToolsConformance(t *testing.T) {
	behaviours := []struct {
		name string
		tool Tool
	}{
		{"Read", Tool{Result: "contents", Tokens: 300, Concurrent: true}},
		{"Glob", Tool{Concurrent: true}},
		{"Write", Tool{IsError: true, Result: "failed"}},
		{"Bash", Tool{Err: "exit 1"}},
		{"Sleep", Tool{Slow: true, Concurrent: true}},
		{"Explode", Tool{Panic: "boom", Concurrent: true}},
		{"Rm", Tool{Deny: "no"}},
		{"Hooked", Tool{PreventContinuation: true}},
		{"Stop", Tool{Abort: true}},
	}
	var calls []loop.ToolCall
	byName := map[string]Tool{}
	for i, b := range behaviours {
		byName[b.name] = b.tool
		calls = append(calls, loop.ToolCall{ID: fmt.Sprintf("toolu_1_%d", i+1), Name: b.name, Input: "{}", Index: i})
	}
	calls = append(calls, loop.ToolCall{ID: "toolu_2_1", Name: "Unknown", Index: len(calls)})
	newTools := func() loop.Tools {
		return &Tools{ByName: byName, ByID: map[string]Tool{"toolu_2_1": {Slow: true}}, Default: Tool{Result: "?"}}
	}
	assert.NoError(t, looptest.CheckTools(newTools, calls...))
	assert.NoError(t, looptest.CheckTools(func() loop.Tools { return &Tools{} }))
}

func TestStopHooksConformance(t *testing.T) {
	for name, outcomes := range map[string][]StopOutcome{
		"pass":               nil,
		"always block":       {{Block: "keep going"}},
		"block twice":        {{Block: "fix it", Times: 2}, {}},
		"fail then prevent":  {{Err: "crashed"}, {Prevent: true, Reason: "enough"}},
		"panic":              {{Panic: "hook"}},
		"block and prevent":  {{Block: "b", Prevent: true}},
		"alternate outcomes": {{}, {Block: "a"}, {}, {Block: "b"}, {Err: "e"}},
	} {
		t.Run(name, func(t *testing.T) {
			assert.NoError(t, looptest.CheckStopHooks(func() loop.StopHooks { return &StopHooks{Outcomes: outcomes} }))
		})
	}
}

func TestCompactorConformance(t *testing.T) {
	for name, outcomes := range map[string][]CompactOutcome{
		"succeed":                    nil,
		"fail twice then succeed":    {{Err: "x", Times: 2}, {SummaryTokens: 500}},
		"keep more than there is":    {{Keep: 1000}},
		"panic then explicit":        {{Panic: "compact"}, {Summary: "<summary>s</summary>", SummaryTokens: 10, Keep: 1}},
		"always fail":                {{Err: "nope"}},
		"succeed, fail, succeed big": {{}, {Err: "once"}, {SummaryTokens: 90_000, Keep: 3}},
	} {
		t.Run(name, func(t *testing.T) {
			assert.NoError(t, looptest.CheckCompactor(func() loop.Compactor { return &Compactor{Outcomes: outcomes} }))
		})
	}
}

func TestSummarizerConformance(t *testing.T) {
	for name, outcomes := range map[string][]SummaryOutcome{
		"default":      nil,
		"text":         {{Text: "Read files"}},
		"slow":         {{Slow: true}},
		"fail, panic":  {{Err: "x"}, {Panic: "p"}, {}},
		"slow then ok": {{Slow: true, Times: 2}, {Text: "ok"}},
	} {
		t.Run(name, func(t *testing.T) {
			assert.NoError(t, looptest.CheckToolUseSummarizer(func() loop.ToolUseSummarizer { return &Summarizer{Outcomes: outcomes} }))
		})
	}
}
