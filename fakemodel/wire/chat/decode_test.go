package chat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// A conversation with a system prompt, a developer message, a tool turn
// with two calls answered by two tool messages and a user message after
// them reads as the loop holds it.
func TestDecodeReadsTheConversationInLoopTerms(t *testing.T) {
	b := request(system("be brief"), user("fix it"), calls("c1", "c2"), toolMsg("c1", "a"), toolMsg("c2", "b"), user("and?"),
		map[string]any{"role": "developer", "content": "dev"}, assistant("done")).
		with("max_completion_tokens", 500).with("stream", true).
		with("tools", []any{map[string]any{"type": "function", "function": map[string]any{"name": "Read", "parameters": map[string]any{}}}})
	d, err := decode(t, b)
	require.NoError(t, err)
	assert.True(t, d.Stream)
	assert.False(t, d.Request.NonStreaming)
	assert.Equal(t, "gpt-test", d.Request.Model)
	assert.Equal(t, 500, d.Request.MaxTokens)
	assert.Equal(t, []string{"Read"}, d.Request.Tools)
	assert.Equal(t, loop.PurposeMain, d.Request.Purpose)
	assert.Equal(t, []string{"user:text", "assistant:tool_use+tool_use", "user:tool_result+tool_result+text", "assistant:text"}, d.Shapes)
	require.Len(t, d.Request.Messages, 4)
	uses := d.Request.Messages[1].Blocks
	assert.Equal(t, loop.Block{Type: loop.BlockToolUse, ID: "c1", Name: "Read", Input: `{"p":"c1"}`}, uses[0])
	results := d.Request.Messages[2].Blocks
	assert.Equal(t, loop.Block{Type: loop.BlockToolResult, ToolUseID: "c2", Text: "b"}, results[1])
	assert.Equal(t, "and?", results[2].Text)
	assert.Positive(t, d.SystemTokens, "system, developer and the tool")
	sum := d.SystemTokens
	for _, m := range d.Request.Messages {
		sum += m.Tokens
	}
	assert.Equal(t, sum, d.Request.InputTokens)
	assert.Len(t, d.Hashes, 4)
}

func TestDecodeContentParts(t *testing.T) {
	b := request(map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "look"},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,AAAA"}},
	}}, map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "a"}, map[string]any{"type": "refusal", "refusal": "no"}}},
		map[string]any{"role": "user", "content": "ok"})
	d, err := decode(t, b)
	require.NoError(t, err)
	blocks := d.Request.Messages[0].Blocks
	require.Len(t, blocks, 2)
	assert.Equal(t, "look", blocks[0].Text)
	assert.Empty(t, blocks[1].Text, "an image carries only its size")
	assert.Positive(t, blocks[1].Tokens)
	assert.Equal(t, []string{"user:text+text", "assistant:text+text", "user:text"}, d.Shapes)
}

// The output cap: max_completion_tokens over the deprecated max_tokens,
// 0 without either; stream false without stream.
func TestDecodeOutputCapAndStream(t *testing.T) {
	cases := []struct {
		name string
		b    body
		cap  int
	}{
		{"none", request(user("x")), 0},
		{"max_tokens", request(user("x")).with("max_tokens", 30), 30},
		{"max_completion_tokens", request(user("x")).with("max_completion_tokens", 40), 40},
		{"both", request(user("x")).with("max_tokens", 30).with("max_completion_tokens", 40), 40},
		{"null", request(user("x")).with("max_tokens", nil), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := decode(t, c.b)
			require.NoError(t, err)
			assert.Equal(t, c.cap, d.Request.MaxTokens)
			assert.False(t, d.Stream)
			assert.True(t, d.Request.NonStreaming)
		})
	}
}

// The purpose rule is the core's: a last user message asking for a
// summary in tags is a compaction request, also after tool results.
func TestDecodePurpose(t *testing.T) {
	ask := "Summarise the conversation so far between <summary> and </summary> tags."
	d, err := decode(t, request(user("go"), assistant("ok"), user(ask)))
	require.NoError(t, err)
	assert.Equal(t, loop.PurposeCompact, d.Request.Purpose)
	d, err = decode(t, request(user("go"), calls("c1"), toolMsg("c1", "r"), user(ask)))
	require.NoError(t, err)
	assert.Equal(t, loop.PurposeCompact, d.Request.Purpose)
	d, err = decode(t, request(user("<summary>the story</summary>")))
	require.NoError(t, err)
	assert.Equal(t, loop.PurposeMain, d.Request.Purpose, "a summary is not the request for one")
}

// reasoning_content on an assistant message is a thinking block, before
// the text; a tool call whose arguments are not JSON is kept as sent.
func TestDecodeReasoningAndRawArguments(t *testing.T) {
	a := map[string]any{"role": "assistant", "reasoning_content": "hmm", "content": "x", "tool_calls": []any{
		map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "Edit", "arguments": `{"file":"a.`}}}}
	d, err := decode(t, request(user("go"), a, toolMsg("c1", "r")))
	require.NoError(t, err)
	assert.Equal(t, []string{"user:text", "assistant:thinking+text+tool_use", "user:tool_result"}, d.Shapes)
	assert.Equal(t, `{"file":"a.`, d.Request.Messages[1].Blocks[2].Input)
}

// A later request that keeps the conversation gives the same hashes for
// the messages it kept.
func TestDecodeHashesFollowTheMessagesAsSent(t *testing.T) {
	d1, err := decode(t, request(user("go"), calls("c1"), toolMsg("c1", "r")))
	require.NoError(t, err)
	d2, err := decode(t, request(user("go"), calls("c1"), toolMsg("c1", "r"), assistant("ok"), user("more")))
	require.NoError(t, err)
	assert.Equal(t, d1.Hashes, d2.Hashes[:3])
	d3, err := decode(t, request(user("go"), calls("c1"), toolMsg("c1", "r2")))
	require.NoError(t, err)
	assert.NotEqual(t, d1.Hashes[2], d3.Hashes[2])
}
