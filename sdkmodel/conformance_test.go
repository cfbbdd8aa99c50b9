package sdkmodel_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/loop/looptest"
	"github.com/loopsim/loopsim/sdkmodel"
)

// The Model honours the model seam's contract (looptest.CheckModel)
// against a server that answers its series with a reply that pauses after
// the first block, a tool use, a summary, each fault, and a mid-stream
// error.
func TestCheckModel(t *testing.T) {
	newModel := func() loop.Model {
		s := newServer(t,
			slowReply,
			streamAnswer(concat(messageStart(50, 0, 0), textBlock(0, "checking"), toolBlock(1, "toolu_c1", "Read", `{"path":"a.go"}`), messageEnd(loop.StopToolUse, 12))...),
			textReply("<summary>the story so far</summary>", 80, 9),
			jsonAnswer(529, errorBody("overloaded_error", "overloaded")),
			jsonAnswer(400, errorBody("invalid_request_error", "prompt is too long: 9000 tokens > 8000 maximum")),
			jsonAnswer(429, errorBody("rate_limit_error", "rate limit exceeded"), "retry-after", "3"),
			streamAnswer(concat(messageStart(50, 0, 0), textBlock(0, "chunk 1"), errorEvent("api_error", "boom"))...),
			textReply("done", 90, 3),
		)
		return s.model(t, sdkmodel.Config{})
	}
	require.NoError(t, looptest.CheckModel(newModel))
}

// slowReply sends its first block, waits a moment (or for the client to
// go away), then finishes.
func slowReply(w http.ResponseWriter, r *http.Request) {
	writeEvents(w, concat(messageStart(40, 0, 0), textBlock(0, "first")))
	w.(http.Flusher).Flush()
	select {
	case <-r.Context().Done():
		return
	case <-slowTimer():
	}
	for _, e := range concat(textBlock(1, "second"), messageEnd(loop.StopEndTurn, 4)) {
		writeEvent(w, e)
	}
}

// The loop runs over the Model: the claude-code profile, a 529 the loop's
// retry layer retries (one HTTP request per attempt), a tool turn, then a
// text reply.
func TestLoopOverModel(t *testing.T) {
	s := newServer(t,
		jsonAnswer(529, errorBody("overloaded_error", "overloaded")),
		streamAnswer(concat(messageStart(300, 0, 0), toolBlock(0, "toolu_l1", "Bash", `{"cmd":"go test"}`), messageEnd(loop.StopToolUse, 20))...),
		textReply("All tests pass.", 400, 6),
	)
	tools := &fakemodel.Tools{ByName: map[string]fakemodel.Tool{"Bash": {Result: "ok"}}}
	cfg := loop.Config{
		Policy:  loop.ClaudeCode(),
		Model:   s.model(t, sdkmodel.Config{}),
		Primary: loop.ModelInfo{Name: "claude-test", ContextWindow: 200_000, MaxOutputTokens: 32_000},
		Tools:   tools,
	}
	res, err := loop.Run(context.Background(), cfg, []loop.Message{loop.UserText("run the tests")})
	require.NoError(t, err)
	assert.Equal(t, loop.Completed, res.Terminal)
	assert.Equal(t, []loop.Transition{loop.NextTurn}, res.Trace.Transitions())
	got := s.received()
	require.Len(t, got, 3)
	for _, r := range got {
		assert.EqualValues(t, 32_000, r.body["max_tokens"])
	}
	assert.Equal(t, []any{"user", "assistant", "user"}, roles(t, got[2].body))
	assert.Equal(t, "toolu_l1", jsonPath(t, got[2].body, "messages.2.content.0.tool_use_id"))
}
