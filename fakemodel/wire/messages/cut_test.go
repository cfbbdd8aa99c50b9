package messages_test

import (
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
