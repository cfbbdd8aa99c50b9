package gemini_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// blocks is a decoded request's messages, as role and blocks (tokens
// left out).
func blocks(msgs []loop.Message) [][]loop.Block {
	out := make([][]loop.Block, len(msgs))
	for i, m := range msgs {
		for _, b := range m.Blocks {
			b.Tokens = 0
			out[i] = append(out[i], b)
		}
	}
	return out
}

// Accepted requests read into the loop's terms: parts as blocks, calls
// and responses paired by id, or by name in order when they carry none.
func TestDecodeReadsTheLoopsTerms(t *testing.T) {
	tests := []struct {
		name   string
		body   obj
		want   [][]loop.Block
		shapes []string
	}{{
		name:   "text",
		body:   request(user(text("hi"))),
		want:   [][]loop.Block{{{Type: loop.BlockText, Text: "hi"}}},
		shapes: []string{"user:text"},
	}, {
		name: "a role left out is the user's",
		body: request(obj{"parts": arr{text("hi")}}),
		want: [][]loop.Block{{{Type: loop.BlockText, Text: "hi"}}},
	}, {
		name: "thought, text and a call with its id, answered by id",
		body: request(user(text("go")),
			model(obj{"text": "let me look", "thought": true}, text("reading"), call("c1", "Read", obj{"path": "a.go"})),
			user(result("c1", "Read", obj{"output": "package a"}))),
		want: [][]loop.Block{
			{{Type: loop.BlockText, Text: "go"}},
			{{Type: loop.BlockThinking, Text: "let me look"}, {Type: loop.BlockText, Text: "reading"},
				{Type: loop.BlockToolUse, ID: "c1", Name: "Read", Input: `{"path":"a.go"}`}},
			{{Type: loop.BlockToolResult, ToolUseID: "c1", Text: "package a"}},
		},
		shapes: []string{"user:text", "assistant:thinking+text+tool_use", "user:tool_result"},
	}, {
		name: "calls without ids pair by name in order",
		body: request(user(text("go")),
			model(call("", "Read", obj{"path": "a"}), call("", "Bash", nil), call("", "Read", obj{"path": "b"})),
			user(result("", "Read", obj{"output": "A"}), result("", "Read", obj{"output": "B"}), result("", "Bash", obj{"error": "exit 1"}))),
		want: [][]loop.Block{
			{{Type: loop.BlockText, Text: "go"}},
			{{Type: loop.BlockToolUse, ID: "gemini_call_2_1", Name: "Read", Input: `{"path":"a"}`},
				{Type: loop.BlockToolUse, ID: "gemini_call_2_2", Name: "Bash", Input: `{}`},
				{Type: loop.BlockToolUse, ID: "gemini_call_2_3", Name: "Read", Input: `{"path":"b"}`}},
			{{Type: loop.BlockToolResult, ToolUseID: "gemini_call_2_1", Text: "A"},
				{Type: loop.BlockToolResult, ToolUseID: "gemini_call_2_3", Text: "B"},
				{Type: loop.BlockToolResult, ToolUseID: "gemini_call_2_2", Text: "exit 1", IsError: true}},
		},
	}, {
		name: "a response of another shape is its JSON",
		body: request(user(text("go")), model(call("c", "Grep", nil)),
			user(result("c", "Grep", obj{"matches": arr{"a", "b"}, "count": 2}))),
		want: [][]loop.Block{
			{{Type: loop.BlockText, Text: "go"}},
			{{Type: loop.BlockToolUse, ID: "c", Name: "Grep", Input: `{}`}},
			{{Type: loop.BlockToolResult, ToolUseID: "c", Text: `{"count":2,"matches":["a","b"]}`}},
		},
	}, {
		name: "snake_case fields and data the loop has no block for",
		body: obj{"contents": arr{obj{"role": "user", "parts": arr{
			obj{"inline_data": obj{"mime_type": "image/png", "data": "aGVsbG8="}}, text("what is it?")}}}},
		want: [][]loop.Block{{{Type: loop.BlockText}, {Type: loop.BlockText, Text: "what is it?"}}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := decode(t, generate, tt.body)
			require.NoError(t, err)
			assert.Equal(t, tt.want, blocks(d.Request.Messages))
			if tt.shapes != nil {
				assert.Equal(t, tt.shapes, d.Shapes)
			}
			assert.Len(t, d.Hashes, len(tt.want))
			assert.Equal(t, loop.PurposeMain, d.Request.Purpose)
		})
	}
}

// The request's model is the path's, its cap generationConfig's, its
// tools the function declarations' names; the system instruction and
// the tools count as system tokens, within the input.
func TestDecodeReadsTheRequestsFrame(t *testing.T) {
	body := request(user(text("hi")))
	body["systemInstruction"] = obj{"parts": arr{text("You are a careful engineer.")}}
	body["tools"] = arr{obj{"functionDeclarations": arr{obj{"name": "Read"}, obj{"name": "Bash", "description": "runs a command"}}},
		obj{"googleSearch": obj{}}}
	body["generationConfig"] = obj{"maxOutputTokens": "4096", "temperature": 0.2}

	d, err := decode(t, wire.Route{Endpoint: wire.EndpointGenerate, Model: "gemini-test", Stream: true}, body)
	require.NoError(t, err)
	r := d.Request
	assert.Equal(t, "gemini-test", r.Model)
	assert.Equal(t, 4096, r.MaxTokens, "an int32 may be a string of digits in proto JSON")
	assert.Equal(t, []string{"Read", "Bash"}, r.Tools)
	assert.True(t, d.Stream)
	assert.False(t, r.NonStreaming)
	assert.Greater(t, d.SystemTokens, 0)
	assert.Equal(t, d.SystemTokens+r.Messages[0].Tokens, r.InputTokens)

	plain, err := decode(t, generate, request(user(text("hi"))))
	require.NoError(t, err)
	assert.Zero(t, plain.Request.MaxTokens, "no cap when the request sets none")
	assert.True(t, plain.Request.NonStreaming)
	assert.Zero(t, plain.SystemTokens)
	assert.Less(t, plain.Request.InputTokens, r.InputTokens)
}

// countTokens takes contents, or a whole generateContentRequest, and
// answers the request's estimated size.
func TestCountTokens(t *testing.T) {
	count := wire.Route{Endpoint: wire.EndpointCount, Model: "gemini-test"}
	bare, err := decode(t, count, request(user(text("how many tokens is this?"))))
	require.NoError(t, err)
	whole, err := decode(t, count, obj{"generateContentRequest": obj{"model": "models/gemini-test",
		"contents":          arr{user(text("how many tokens is this?"))},
		"systemInstruction": obj{"parts": arr{text("be brief")}},
		"generationConfig":  obj{"maxOutputTokens": 1_000_000}}})
	require.NoError(t, err, "countTokens does not check the output cap")
	assert.Greater(t, whole.Request.InputTokens, bare.Request.InputTokens, "the system instruction counts")
	assert.Equal(t, map[string]any{"totalTokens": float64(bare.Request.InputTokens),
		"promptTokensDetails": []any{map[string]any{"modality": "TEXT", "tokenCount": float64(bare.Request.InputTokens)}}},
		roundTrip(t, api.Count(bare)))

	_, err = decode(t, count, obj{"generateContentRequest": "contents"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Invalid value at 'generate_content_request'")
}
