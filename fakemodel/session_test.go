package fakemodel

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/loop/looptest"
)

func replaySteps() []SessionStep {
	return []SessionStep{{Output: 100, Tools: 2, Adds: 1_001}, {Output: 50, Tools: 0, Adds: 400}, {Output: 70, Tools: 1, Adds: 10}, {Output: 30}}
}

func TestSessionConformance(t *testing.T) {
	for _, steps := range [][]SessionStep{replaySteps(), nil} {
		require.NoError(t, looptest.CheckModel(func() loop.Model {
			return &Session{Start: 1_000, Steps: steps, Summary: 500, Window: 200_000}
		}))
	}
	require.NoError(t, looptest.CheckTools(func() loop.Tools { return &Session{Steps: replaySteps()} },
		loop.ToolCall{ID: "t1", Name: "Replay", Input: "{}"}))
}

// TestSessionReplaysTheSteps: the loop sees each step's output and tool
// calls, the results carry what the context gained (split over the
// batch), a call without tools is replayed as one tool call, and the last
// step answers.
func TestSessionReplaysTheSteps(t *testing.T) {
	s := &Session{Start: 1_000, Steps: replaySteps(), Summary: 500, Window: 200_000}
	var inputs []int
	cfg := loop.Config{Policy: loop.ClaudeCode(), Model: s, Tools: s, ToolNames: []string{"Replay"},
		Primary: loop.ModelInfo{Name: "m", ContextWindow: 200_000, MaxOutputTokens: 32_000},
		Observer: func(e loop.Event) {
			if r, ok := e.(loop.RequestEvent); ok && r.Purpose == loop.PurposeMain {
				inputs = append(inputs, r.InputTokens)
			}
		}}
	res, err := loop.Run(context.Background(), cfg, s.Initial())
	require.NoError(t, err)
	assert.Equal(t, loop.Completed, res.Terminal)
	assert.Equal(t, []int{0, 1, 2, 3}, s.StepOf)
	require.Len(t, inputs, 4)
	for i := 1; i < 4; i++ {
		st := s.Steps[i-1]
		assert.InDelta(t, st.Output+st.Adds, inputs[i]-inputs[i-1], 30, "growth before call %d", i)
	}
}

// TestSessionOverflow: a request at the window fails prompt-too-long.
func TestSessionOverflow(t *testing.T) {
	s := &Session{Start: 10, Steps: replaySteps(), Window: 100}
	_, err := s.Stream(context.Background(), loop.Request{Purpose: loop.PurposeMain, InputTokens: 100, MaxTokens: 10}, func(loop.Block) {})
	var re *loop.RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, loop.KindPromptTooLong, re.Kind)
}

// sessionStream calls s.Stream and collects the blocks.
func sessionStream(t *testing.T, s *Session, r loop.Request) ([]loop.Block, loop.Response) {
	t.Helper()
	var blocks []loop.Block
	resp, err := s.Stream(context.Background(), r, func(b loop.Block) { blocks = append(blocks, b) })
	require.NoError(t, err)
	return blocks, resp
}

// withIDs is a history of one user message per ID.
func withIDs(ids ...string) []loop.Message {
	out := make([]loop.Message, len(ids))
	for i, id := range ids {
		out[i] = loop.Message{ID: id, Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockText, Text: id}}}
	}
	return out
}

// TestSessionCutsAtTheCap: a reply or a summary longer than the request's
// max_tokens, or than what is left of the window, is cut there (stop
// max_tokens, with some text); one exactly at the cap is not.
func TestSessionCutsAtTheCap(t *testing.T) {
	for _, c := range []struct {
		name             string
		purpose          loop.Purpose
		input, maxTokens int
		wantOut          int
		wantStop         loop.StopReason
	}{
		{"summary under the cap", loop.PurposeCompact, 1_000, 8_000, 500, loop.StopEndTurn},
		{"summary at max_tokens", loop.PurposeCompact, 1_000, 500, 500, loop.StopEndTurn},
		{"summary over max_tokens", loop.PurposeCompact, 1_000, 499, 499, loop.StopMaxTokens},
		{"summary over what is left of the window", loop.PurposeCompact, 9_800, 8_000, 200, loop.StopMaxTokens},
		{"summary at what is left of the window", loop.PurposeCompact, 9_500, 8_000, 500, loop.StopEndTurn},
		{"reply at max_tokens", loop.PurposeMain, 1_000, 300, 300, loop.StopToolUse},
		{"reply over max_tokens", loop.PurposeMain, 1_000, 299, 299, loop.StopMaxTokens},
		{"reply over what is left of the window", loop.PurposeMain, 9_900, 8_000, 100, loop.StopMaxTokens},
	} {
		s := &Session{Start: 1_000, Steps: []SessionStep{{Output: 300, Tools: 1, Adds: 50}, {Output: 10}}, Summary: 500, Window: 10_000}
		blocks, resp := sessionStream(t, s, loop.Request{Purpose: c.purpose, MaxTokens: c.maxTokens, InputTokens: c.input, Messages: withIDs("a")})
		assert.Equal(t, c.wantStop, resp.StopReason, c.name)
		assert.Equal(t, c.wantOut, resp.Usage.OutputTokens, c.name)
		if assert.NotEmpty(t, blocks, c.name) {
			assert.Equal(t, loop.BlockText, blocks[0].Type, c.name)
			assert.NotEmpty(t, blocks[0].Text, c.name)
		}
	}
}

// TestSessionAsksAgain: a request the loop re-sends after dropping the
// reply (the same last message) replays the same step, whatever the
// history's length; a new request replays the next step.
func TestSessionAsksAgain(t *testing.T) {
	s := &Session{Start: 1_000, Steps: replaySteps(), Summary: 500, Window: 200_000}
	ask := func(ids ...string) {
		sessionStream(t, s, loop.Request{Purpose: loop.PurposeMain, MaxTokens: 8_000, InputTokens: 2_000, Messages: withIDs(ids...)})
	}
	ask("a")
	ask("a")
	ask("a", "b")
	ask("a", "b", "c")
	ask("a", "b", "c")
	assert.Equal(t, []int{0, 0, 1, 2, 2}, s.StepOf)
}

// TestSessionSplitsWhatWasAdded: a step's additions are split evenly over
// its batch of tool calls, the first result taking the remainder, so the
// results add up to exactly what the context gained; a reply is its text,
// then one Replay tool use per call.
func TestSessionSplitsWhatWasAdded(t *testing.T) {
	for _, c := range []struct {
		step SessionStep
		want []int
	}{
		{SessionStep{Output: 10, Tools: 3, Adds: 10}, []int{4, 3, 3}},
		{SessionStep{Output: 10, Tools: 2, Adds: 1_001}, []int{501, 500}},
		{SessionStep{Output: 10, Tools: 4, Adds: 8}, []int{2, 2, 2, 2}},
		{SessionStep{Output: 10, Tools: 0, Adds: 70}, []int{70}},
		{SessionStep{Output: 10, Tools: 2, Adds: 0}, []int{1, 1}},
	} {
		s := &Session{Start: 1_000, Steps: []SessionStep{c.step, {Output: 5}}, Window: 200_000}
		blocks, resp := sessionStream(t, s, loop.Request{Purpose: loop.PurposeMain, MaxTokens: 8_000, InputTokens: 2_000, Messages: withIDs("a")})
		require.Equal(t, loop.StopToolUse, resp.StopReason, "%+v", c.step)
		require.Len(t, blocks, 1+len(c.want), "%+v: text and tool uses", c.step)
		assert.Equal(t, loop.BlockText, blocks[0].Type, "%+v", c.step)
		var got []int
		for i, b := range blocks[1:] {
			assert.Equal(t, loop.BlockToolUse, b.Type, "%+v", c.step)
			assert.Equal(t, "Replay", b.Name, "%+v", c.step)
			o, err := s.Run(context.Background(), loop.ToolCall{ID: b.ID, Name: b.Name, Input: b.Input, Index: i})
			require.NoError(t, err)
			got = append(got, o.Tokens)
		}
		assert.Equal(t, c.want, got, "%+v: result sizes", c.step)
		// a call outside the batch gets a result of one token
		o, err := s.Run(context.Background(), loop.ToolCall{ID: "x", Name: "Replay", Input: "{}", Index: len(c.want)})
		require.NoError(t, err)
		assert.Equal(t, 1, o.Tokens, "%+v: a call outside the batch", c.step)
	}
}

// TestSessionWithoutSteps answers every request, even one without
// messages, with a one-token text.
func TestSessionWithoutSteps(t *testing.T) {
	s := &Session{Start: 10, Window: 1_000}
	for _, msgs := range [][]loop.Message{withIDs("a"), nil} {
		blocks, resp := sessionStream(t, s, loop.Request{Purpose: loop.PurposeMain, MaxTokens: 100, InputTokens: 10, Messages: msgs})
		assert.Equal(t, loop.StopEndTurn, resp.StopReason)
		assert.Equal(t, 1, resp.Usage.OutputTokens)
		if assert.Len(t, blocks, 1) {
			assert.NotEmpty(t, blocks[0].Text)
		}
	}
	s = &Session{Start: 10, Steps: replaySteps(), Window: 1_000}
	_, resp := sessionStream(t, s, loop.Request{Purpose: loop.PurposeMain, MaxTokens: 100, InputTokens: 10})
	assert.Equal(t, loop.StopToolUse, resp.StopReason, "the first step, asked without messages")
}
