package fakemodel

import (
	"context"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/loop/looptest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStopFailureHooksConformance(t *testing.T) {
	for name, outcomes := range map[string][]StopFailureOutcome{
		"succeed":        nil,
		"fail":           {{Err: "exited 1"}},
		"panic":          {{Panic: "hook"}},
		"fail then pass": {{Err: "exited 1", Times: 2}, {}},
	} {
		t.Run(name, func(t *testing.T) {
			assert.NoError(t, looptest.CheckStopFailureHooks(func() loop.StopFailureHooks { return &StopFailureHooks{Outcomes: outcomes} }))
		})
	}
}

func TestStopFailureHooksFollowTheirOutcomes(t *testing.T) {
	h := &StopFailureHooks{Outcomes: []StopFailureOutcome{{Err: "exited 1", Times: 2}, {}}}
	msgs := []loop.Message{loop.UserText("go")}
	for i, want := range []string{"exited 1", "exited 1", "", ""} {
		err := h.RunStopFailureHooks(context.Background(), loop.StopFailureInput{Messages: msgs, Error: "529 overloaded", Turn: i + 1})
		if want == "" {
			assert.NoError(t, err, "call %d", i+1)
		} else {
			assert.EqualError(t, err, want, "call %d", i+1)
		}
	}
	assert.Equal(t, []string{"529 overloaded", "529 overloaded", "529 overloaded", "529 overloaded"}, h.Errors())
	require.Len(t, h.Inputs, 4)
	msgs[0] = loop.UserText("changed")
	assert.Equal(t, "go", h.Inputs[0].Messages[0].Text(), "the recorded input is a copy")

	assert.PanicsWithValue(t, "crashed", func() {
		(&StopFailureHooks{Outcomes: []StopFailureOutcome{{Panic: "crashed"}}}).RunStopFailureHooks(context.Background(), loop.StopFailureInput{})
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, (&StopFailureHooks{}).RunStopFailureHooks(ctx, loop.StopFailureInput{}), context.Canceled)
}
