package chat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/loop/looptest"
	"github.com/loopsim/loopsim/sdkmodel/chat"
)

// The Model honours the model seam's contract (looptest.CheckModel)
// against the fake server answering its series with a tool call, a
// summary, each fault the Chat wire carries, and a cut stream.
func TestCheckModel(t *testing.T) {
	newM := func() loop.Model {
		m, _ := newModel(t, []fakemodel.Step{
			{Text: "checking", ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"path":"a.go"}`}}},
			{Text: "<summary>the story so far</summary>"},
			{Kind: fakemodel.Overloaded},
			{Kind: fakemodel.PromptTooLong, Maximum: 10},
			{Kind: fakemodel.RateLimited, RetryAfterMS: 3000},
			{Kind: fakemodel.StreamError, After: 1},
			{Kind: fakemodel.ServerError, Status: 502},
			{Text: "done"},
		}, chat.Config{SendInputTokens: true})
		return m
	}
	require.NoError(t, looptest.CheckModel(newM))
}
