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
	assert.Equal(t, loop.ErrPromptTooLong, re.Kind)
}
