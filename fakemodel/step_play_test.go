package fakemodel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// A reply that states no output_tokens reports an estimate: four
// characters to a token in each block, rounded up; a truncated step
// estimates the same when the request sets no max_tokens.
func TestOutputEstimateIsFourCharactersAToken(t *testing.T) {
	content := Step{
		Thinking: "think",                                     // 5 characters: 2 tokens
		Text:     "123456789",                                 // 9: 3
		ToolUses: []ToolUse{{Name: "Read", Input: `{"a":1}`}}, // 4 + 7 = 11: 3
	}
	truncated := content
	truncated.Kind, truncated.ToolUses = Truncated, nil
	one := Step{Text: "ok"} // 2: 1
	m := &Model{Script: []Step{content, truncated, one}}
	_, resp, err := stream(t, m, req(10))
	require.NoError(t, err)
	assert.Equal(t, 8, resp.Usage.OutputTokens, "thinking, text and a tool use")
	r := req(10)
	r.MaxTokens = 0
	_, resp, err = stream(t, m, r)
	require.NoError(t, err)
	assert.Equal(t, 5, resp.Usage.OutputTokens, "truncated thinking and text, no max_tokens")
	_, resp, err = stream(t, m, req(10))
	require.NoError(t, err)
	assert.Equal(t, 1, resp.Usage.OutputTokens, "a two-character reply")
}

// A malformed tool use yields the step's text, or a stock sentence when
// the step has none, and never a tool_use block.
func TestMalformedToolUseText(t *testing.T) {
	m := &Model{Script: []Step{{Kind: MalformedToolUse}, {Kind: MalformedToolUse, Text: "Reading it."}}}
	blocks, resp, err := stream(t, m, req(10))
	require.NoError(t, err)
	assert.Equal(t, []loop.Block{{Type: loop.BlockText, Text: "I'll use a tool."}}, blocks, "no content")
	assert.Equal(t, loop.StopToolUse, resp.StopReason)
	blocks, _, err = stream(t, m, req(10))
	require.NoError(t, err)
	assert.Equal(t, []loop.Block{{Type: loop.BlockText, Text: "Reading it."}}, blocks, "the step's text")
}

// A stream error says how many blocks came before it, in the singular
// for one.
func TestStreamErrorMessage(t *testing.T) {
	for _, c := range []struct {
		after int
		want  string
	}{
		{1, "error event after 1 content block"},
		{2, "error event after 2 content blocks"},
	} {
		m := &Model{Script: []Step{{Kind: StreamError, Text: "part", After: c.after}}}
		_, _, err := stream(t, m, req(10))
		var re *loop.RequestError
		require.ErrorAs(t, err, &re, "after %d", c.after)
		assert.Equal(t, c.want, re.Message, "after %d", c.after)
	}
}

// A dropped connection says whether it dropped before the response or
// after some of it streamed.
func TestConnectionDroppedMessage(t *testing.T) {
	for _, c := range []struct {
		after int
		want  string
	}{
		{0, "connection dropped before a response"},
		{1, "connection dropped after 1 content block"},
		{3, "connection dropped after 3 content blocks"},
	} {
		m := &Model{Script: []Step{{Kind: ConnectionDropped, Text: "part", After: c.after}}}
		blocks, _, err := stream(t, m, req(10))
		var re *loop.RequestError
		require.ErrorAs(t, err, &re, "after %d", c.after)
		assert.Equal(t, loop.KindConnection, re.Kind, "after %d", c.after)
		assert.Equal(t, c.want, re.Message, "after %d", c.after)
		assert.Len(t, blocks, c.after, "after %d: blocks yielded", c.after)
	}
}
