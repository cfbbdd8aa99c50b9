package loop_test

import (
	"context"
	"errors"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scriptedCaller answers each call with the next of its replies (text,
// 10 output tokens) or errors, recording the requests.
type scriptedCaller struct {
	texts    []string
	errs     []error
	requests []loop.Request
}

func (c *scriptedCaller) Call(ctx context.Context, req loop.Request) (loop.Reply, error) {
	i := len(c.requests)
	c.requests = append(c.requests, loop.Request{Purpose: req.Purpose, Messages: append([]loop.Message(nil), req.Messages...)})
	if i < len(c.errs) && c.errs[i] != nil {
		return loop.Reply{}, c.errs[i]
	}
	return loop.Reply{Blocks: []loop.Block{{Type: loop.BlockText, Text: c.texts[i]}},
		Response: loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{OutputTokens: 10}}}, nil
}

// texts lists the messages' texts.
func texts(msgs []loop.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Text()
	}
	return out
}

// Each summary without tags is asked for again, up to the re-ask count:
// every re-ask carries the conversation, the instruction, and each
// earlier reply with the re-ask instruction after it.
func TestSummaryCompactorReasksForTags(t *testing.T) {
	caller := &scriptedCaller{texts: []string{"no tags", "still none", "<summary>the work</summary>"}}
	prompt := loop.UserText("port the parser")
	res, err := loop.SummaryCompactor{MaxCalls: 3, ReaskMissingTags: 2}.Compact(t.Context(),
		loop.CompactRequest{Trigger: loop.TriggerAuto, Messages: []loop.Message{prompt}, PreserveTail: 2, Call: caller})
	require.NoError(t, err)
	assert.Equal(t, "<summary>the work</summary>", res.Summary)
	assert.Equal(t, 10, res.SummaryTokens)
	assert.Zero(t, res.Keep, "a prompt alone is summarised, not kept")
	require.Len(t, caller.requests, 3)
	want := []string{"port the parser", loop.SummariseInstruction}
	assert.Equal(t, want, texts(caller.requests[0].Messages))
	want = append(want, "no tags", loop.ReaskInstruction)
	assert.Equal(t, want, texts(caller.requests[1].Messages))
	want = append(want, "still none", loop.ReaskInstruction)
	assert.Equal(t, want, texts(caller.requests[2].Messages))
	for _, r := range caller.requests {
		assert.Equal(t, loop.PurposeCompact, r.Purpose)
	}
}

// An empty conversation is summarised like any other: the instruction
// alone is sent.
func TestSummaryCompactorEmptyConversation(t *testing.T) {
	caller := &scriptedCaller{texts: []string{"<summary>nothing yet</summary>"}}
	res, err := loop.SummaryCompactor{MaxCalls: 1}.Compact(t.Context(), loop.CompactRequest{Trigger: loop.TriggerAuto, Call: caller})
	require.NoError(t, err)
	assert.Equal(t, "<summary>nothing yet</summary>", res.Summary)
	require.Len(t, caller.requests, 1)
	assert.Equal(t, []string{loop.SummariseInstruction}, texts(caller.requests[0].Messages))
}

// An error that is not an API answer (a broken client) fails the
// compaction at once, naming the call and wrapping the error; an invalid
// request is asked again.
func TestSummaryCompactorCallErrors(t *testing.T) {
	broken := errors.New("broken client")
	caller := &scriptedCaller{errs: []error{broken}, texts: []string{"", "<summary>s</summary>"}}
	msgs := []loop.Message{loop.UserText("go")}
	_, err := loop.SummaryCompactor{MaxCalls: 3}.Compact(t.Context(), loop.CompactRequest{Trigger: loop.TriggerAuto, Messages: msgs, Call: caller})
	require.ErrorIs(t, err, broken)
	assert.EqualError(t, err, "summary compactor: call 1: broken client")
	assert.Len(t, caller.requests, 1, "a thrown error is not retried")

	invalid := &loop.RequestError{Kind: loop.KindInvalidRequest, Status: 400, Message: "bad"}
	caller = &scriptedCaller{errs: []error{invalid}, texts: []string{"", "<summary>s</summary>"}}
	res, err := loop.SummaryCompactor{MaxCalls: 3}.Compact(t.Context(), loop.CompactRequest{Trigger: loop.TriggerAuto, Messages: msgs, Call: caller})
	require.NoError(t, err)
	assert.Equal(t, "<summary>s</summary>", res.Summary)
	assert.Len(t, caller.requests, 2, "an invalid request is asked again")
}
