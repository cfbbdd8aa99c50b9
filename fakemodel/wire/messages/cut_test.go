package messages_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
)

// An error event that cuts a tool_use in the middle of its input leaves
// that block open: its input_json_delta events, then the error, no
// content_block_stop. A complete tool_use before an error is stopped.
func TestErrorEventCutsToolUseInput(t *testing.T) {
	for _, c := range []struct {
		name  string
		input string
		want  []string
	}{
		{"cut in the input", `{"path":"a.`, []string{"message_start", "ping",
			"content_block_start", "content_block_delta", "content_block_stop",
			"content_block_start", "content_block_delta", "error"}},
		{"complete", `{"path":"a.go"}`, []string{"message_start", "ping",
			"content_block_start", "content_block_delta", "content_block_stop",
			"content_block_start", "content_block_delta", "content_block_stop", "error"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := serve(t, wire.Options{}, fakemodel.Step{Kind: fakemodel.StreamError, Text: "Looking.",
				ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: c.input}}, After: 2})
			resp := post(t, srv.URL, request(true, userText("go")))
			defer resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			events, err := readEvents(t, resp.Body)
			require.NoError(t, err)
			assert.Equal(t, c.want, names(events))
			assert.Equal(t, []string{"M:stream_error"}, wire.Labels(srv.Requests()))
		})
	}
}

// A reply cut by max_tokens inside a tool_use's input streams the input
// as far as it goes, stops the block and ends with stop reason
// max_tokens; without streaming, the block's input is {} (a JSON message
// cannot carry the cut).
func TestTruncatedToolUseInput(t *testing.T) {
	step := fakemodel.Step{Kind: fakemodel.Truncated, Text: "Looking.",
		ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"file_path":"notes.t`}}}
	srv, _ := serve(t, wire.Options{}, step, step)
	resp := post(t, srv.URL, request(true, userText("go")))
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	events, err := readEvents(t, resp.Body)
	require.NoError(t, err)
	assert.Equal(t, []string{"message_start", "ping",
		"content_block_start", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop"}, names(events))
	var partial string
	for _, e := range events {
		if d, ok := e.Data["delta"].(map[string]any); ok && d["type"] == "input_json_delta" {
			partial += d["partial_json"].(string)
		}
	}
	assert.Equal(t, `{"file_path":"notes.t`, partial, "the input as the cap cut it")
	assert.Equal(t, "max_tokens", events[8].Data["delta"].(map[string]any)["stop_reason"])

	whole := post(t, srv.URL, request(false, userText("go")))
	defer whole.Body.Close()
	var msg struct {
		Content []struct {
			Type  string         `json:"type"`
			Input map[string]any `json:"input"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
	}
	require.NoError(t, json.NewDecoder(whole.Body).Decode(&msg))
	require.Len(t, msg.Content, 2)
	assert.Equal(t, "tool_use", msg.Content[1].Type)
	assert.Empty(t, msg.Content[1].Input)
	assert.Equal(t, "max_tokens", msg.StopReason)
}

// A connection dropped inside a text block (cut_text) streams
// message_start, the block's start and its text so far, then drops: no
// content_block_stop, no message_delta.
func TestDropInsideTextBlock(t *testing.T) {
	srv, _ := serve(t, wire.Options{}, fakemodel.Step{Kind: fakemodel.ConnectionDropped, CutText: "The build starts with"})
	resp := post(t, srv.URL, request(true, userText("go")))
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	events, _ := readEvents(t, resp.Body)
	assert.Equal(t, []string{"message_start", "ping", "content_block_start", "content_block_delta"}, names(events))
	assert.Equal(t, "The build starts with", events[3].Data["delta"].(map[string]any)["text"])
	assert.Equal(t, []string{"M:drop"}, wire.Labels(srv.Requests()))
}
