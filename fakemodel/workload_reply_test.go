package fakemodel

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// fixed is a workload without faults whose replies are all output tokens
// long and whose summaries are summary tokens long.
func fixed(replies, output, summary int) Workload {
	w := calm(replies)
	w.Output = LogNormal{Median: float64(output), Min: 1, Max: 1_000_000}
	w.Summary = LogNormal{Median: float64(summary), Min: 1, Max: 1_000_000}
	return w
}

// episodeStream calls e.Stream with a live context and collects the
// blocks.
func episodeStream(t *testing.T, e *Episode, r loop.Request) ([]loop.Block, loop.Response) {
	t.Helper()
	var blocks []loop.Block
	resp, err := e.Stream(context.Background(), r, func(b loop.Block) { blocks = append(blocks, b) })
	require.NoError(t, err)
	return blocks, resp
}

// TestEpisodeCutsAtTheCap: a reply or a summary longer than the request's
// max_tokens, or than what is left of the window, is cut there (stop
// max_tokens, with some text); one exactly at the cap is not.
func TestEpisodeCutsAtTheCap(t *testing.T) {
	for _, c := range []struct {
		name             string
		purpose          loop.Purpose
		input, maxTokens int
		wantOut          int
		wantStop         loop.StopReason
	}{
		{"reply at max_tokens", loop.PurposeMain, 30_000, 1_000, 1_000, loop.StopToolUse},
		{"reply over max_tokens", loop.PurposeMain, 30_000, 999, 999, loop.StopMaxTokens},
		{"reply over what is left of the window", loop.PurposeMain, 199_500, 64_000, 500, loop.StopMaxTokens},
		{"reply at what is left of the window", loop.PurposeMain, 199_000, 64_000, 1_000, loop.StopToolUse},
		{"summary at max_tokens", loop.PurposeCompact, 150_000, 20_000, 20_000, loop.StopEndTurn},
		{"summary over max_tokens", loop.PurposeCompact, 150_000, 19_999, 19_999, loop.StopMaxTokens},
		{"summary over what is left of the window", loop.PurposeCompact, 190_000, 64_000, 10_000, loop.StopMaxTokens},
	} {
		e := fixed(3, 1_000, 20_000).Episode(Seeds{Workload: 1, Faults: 2}, 200_000, func() {})
		blocks, resp := episodeStream(t, e, loop.Request{Purpose: c.purpose, MaxTokens: c.maxTokens, InputTokens: c.input, Messages: withIDs("a")})
		assert.Equal(t, c.wantStop, resp.StopReason, c.name)
		assert.Equal(t, c.wantOut, resp.Usage.OutputTokens, c.name)
		if assert.NotEmpty(t, blocks, c.name) {
			assert.Equal(t, loop.BlockText, blocks[0].Type, c.name)
			assert.NotEmpty(t, blocks[0].Text, c.name)
		}
	}
}

// TestEpisodeReplies: a tool-calling reply is some text, then tool uses
// of the agent's tools, each result naming its tool; the last reply
// answers with text; a malformed tool use (stop tool_use, no tool_use
// block) replaces only a tool-calling reply, never the answer.
func TestEpisodeReplies(t *testing.T) {
	ask := func(e *Episode, ids ...string) ([]loop.Block, loop.Response) {
		return episodeStream(t, e, loop.Request{Purpose: loop.PurposeMain, MaxTokens: 8_000, InputTokens: 30_000, Messages: withIDs(ids...)})
	}
	e := calm(2).Episode(Seeds{Workload: 1, Faults: 2}, 200_000, func() {})
	blocks, resp := ask(e, "a")
	require.Equal(t, loop.StopToolUse, resp.StopReason, "the first of two replies")
	require.Greater(t, len(blocks), 1, "the first of two replies: text and tool uses")
	assert.Equal(t, loop.BlockText, blocks[0].Type, "the first of two replies")
	assert.NotEmpty(t, blocks[0].Text, "the first of two replies")
	for _, b := range blocks[1:] {
		require.Equal(t, loop.BlockToolUse, b.Type, "the first of two replies")
		o, err := e.Run(context.Background(), loop.ToolCall{ID: b.ID, Name: b.Name, Input: b.Input})
		require.NoError(t, err)
		assert.Equal(t, b.Name+" ok", o.Content, "the result of %s", b.Name)
		assert.Positive(t, o.Tokens, "the result of %s", b.Name)
	}
	blocks, resp = ask(e, "a", "b")
	assert.Equal(t, loop.StopEndTurn, resp.StopReason, "the answer")
	if assert.Len(t, blocks, 1, "the answer") {
		assert.Equal(t, loop.BlockText, blocks[0].Type, "the answer")
		assert.NotEmpty(t, blocks[0].Text, "the answer")
	}
	for _, name := range []string{"Read", "Grep", "Edit", "Bash", "WebFetch"} {
		o, err := e.Run(context.Background(), loop.ToolCall{ID: "toolu_x", Name: name, Input: "{}"})
		require.NoError(t, err)
		assert.Equal(t, name+" ok", o.Content, "the result of %s", name)
	}

	w := calm(2)
	w.Faults.MalformedToolUse = 1
	e = w.Episode(Seeds{Workload: 1, Faults: 2}, 200_000, func() {})
	blocks, resp = ask(e, "a")
	assert.Equal(t, loop.StopToolUse, resp.StopReason, "malformed")
	if assert.Len(t, blocks, 1, "malformed: text only") {
		assert.Equal(t, loop.BlockText, blocks[0].Type, "malformed")
		assert.NotEmpty(t, blocks[0].Text, "malformed")
	}
	w = calm(1)
	w.Faults.MalformedToolUse = 1
	e = w.Episode(Seeds{Workload: 1, Faults: 2}, 200_000, func() {})
	_, resp = ask(e, "a")
	assert.Equal(t, loop.StopEndTurn, resp.StopReason, "malformed tool use on; the answer still answers")
}

// TestStopHookFeedbackAddsReplies: after a stop hook's feedback the agent
// makes the drawn number of tool-calling replies, then answers again,
// whatever the history's length; a request without messages is answered.
func TestStopHookFeedbackAddsReplies(t *testing.T) {
	w := calm(1)
	w.AfterBlock = Geometric{Min: 2, Mean: 2, Max: 2}
	feedback := loop.Message{ID: "fb", Role: loop.RoleUser, Meta: true,
		Blocks: []loop.Block{{Type: loop.BlockText, Text: loop.StopHookFeedbackPrefix + "tests still fail"}}}
	for _, start := range [][]loop.Message{nil, withIDs("a", "b")} {
		e := w.Episode(Seeds{Workload: 1, Faults: 2}, 200_000, func() {})
		msgs := append(append([]loop.Message(nil), start...), feedback)
		var stops []loop.StopReason
		for i := range 3 {
			_, resp := episodeStream(t, e, loop.Request{Purpose: loop.PurposeMain, MaxTokens: 8_000, InputTokens: 30_000, Messages: msgs})
			stops = append(stops, resp.StopReason)
			msgs = append(msgs, withIDs(string(rune('x'+i)))...)
		}
		assert.Equal(t, []loop.StopReason{loop.StopToolUse, loop.StopToolUse, loop.StopEndTurn}, stops, "feedback after %d messages", len(start))
	}
	e := calm(2).Episode(Seeds{Workload: 1, Faults: 2}, 200_000, func() {})
	for _, msgs := range [][]loop.Message{withIDs("a"), nil} {
		_, resp := episodeStream(t, e, loop.Request{Purpose: loop.PurposeMain, MaxTokens: 8_000, InputTokens: 30_000, Messages: msgs})
		assert.NotEmpty(t, resp.StopReason, "a request of %d messages", len(msgs))
	}
}
