package responses_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/loop/looptest"
	"github.com/loopsim/loopsim/sdkmodel/responses"
)

// serve starts the fake server playing script, and a Model pointed at
// its Responses API.
func serve(t *testing.T, opts wire.Options, script ...fakemodel.Step) (*responses.Model, *wire.Server) {
	t.Helper()
	srv := fakeapi.NewServer(&fakemodel.Model{Script: script, Window: 200_000}, opts)
	t.Cleanup(srv.Close)
	m, err := responses.New(responses.Config{BaseURL: srv.URL + "/v1", APIKey: "loopsim-test", SendInputTokens: true})
	require.NoError(t, err)
	return m, srv
}

// The Model honours the model seam's contract (looptest.CheckModel)
// over the fake server: a reply slow enough to cancel between its
// blocks, a tool call, a summary, each fault, a stream cut after a
// block.
func TestCheckModel(t *testing.T) {
	newModel := func() loop.Model {
		m, _ := serve(t, wire.Options{EventDelay: 2 * time.Millisecond},
			fakemodel.Step{Thinking: "let me see", Text: "checking"},
			fakemodel.Step{Text: "reading", ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"path":"a.go"}`}}},
			fakemodel.Step{Text: "<summary>the story so far</summary>"},
			fakemodel.Step{Kind: fakemodel.Overloaded},
			fakemodel.Step{Kind: fakemodel.PromptTooLong},
			fakemodel.Step{Kind: fakemodel.RateLimited, RetryAfterMS: 3000},
			fakemodel.Step{Kind: fakemodel.StreamError, Text: "chunk 1", After: 1},
			fakemodel.Step{Kind: fakemodel.Truncated, Text: "cut"},
			fakemodel.Step{Text: "done"},
		)
		return m
	}
	require.NoError(t, looptest.CheckModel(newModel))
}

// The loop runs over the Model: an overload the retry layer retries (one
// HTTP request per attempt), a tool turn, then a text reply.
func TestLoopOverModel(t *testing.T) {
	m, srv := serve(t, wire.Options{},
		fakemodel.Step{Kind: fakemodel.Overloaded},
		fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Bash", Input: `{"cmd":"go test"}`}}},
		fakemodel.Step{Text: "All tests pass."},
	)
	tools := &fakemodel.Tools{ByName: map[string]fakemodel.Tool{"Bash": {Result: "ok"}}}
	cfg := loop.Config{
		Policy:  loop.ClaudeCode(),
		Model:   m,
		Primary: loop.ModelInfo{Name: "gpt-test", ContextWindow: 200_000, MaxOutputTokens: 32_000},
		Tools:   tools,
	}
	res, err := loop.Run(context.Background(), cfg, []loop.Message{loop.UserText("run the tests")})
	require.NoError(t, err)
	assert.Equal(t, loop.Completed, res.Terminal)
	assert.Equal(t, []loop.Transition{loop.NextTurn}, res.Trace.Transitions())
	recs := srv.Requests()
	assert.Equal(t, []string{"M:503", "M:tool", "M:text"}, wire.Labels(recs))
	for _, r := range recs {
		assert.Equal(t, "responses", r.API)
		assert.Equal(t, 32_000, r.MaxTokens)
	}
	assert.Equal(t, "uau", recs[2].Roles, "the tool turn comes back as an assistant and a user message")
	assert.Equal(t, []string{"assistant:tool_use", "user:tool_result"}, recs[2].Appended)
}
