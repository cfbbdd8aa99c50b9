package loop_test

import (
	"context"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// OnModelCall sees every attempt before it is sent, with the retry layer's
// position in the jitter stream and the run's counters as they stand then.
func TestOnModelCallSeesEveryAttempt(t *testing.T) {
	p, err := loop.Profile("claude-code")
	require.NoError(t, err)
	var calls []loop.ModelCall
	cfg := loop.Config{Policy: p, Primary: haiku, Seed: 7,
		Model: &fakemodel.Model{Script: []fakemodel.Step{{Kind: fakemodel.ServerError}, {Kind: fakemodel.RateLimited}, {Text: "done"}}},
		OnModelCall: func(c loop.ModelCall) {
			c.Request.Messages = nil // valid only during the call
			c.Iteration.Messages = nil
			c.State.Messages = nil
			calls = append(calls, c)
		}}
	res, err := loop.Run(context.Background(), cfg, []loop.Message{loop.UserText("hi")})
	require.NoError(t, err)
	require.Equal(t, loop.Completed, res.Terminal)
	require.Len(t, calls, 3, "one per attempt")
	var attempts, draws, requests, retries []int
	for _, c := range calls {
		attempts = append(attempts, c.Attempt)
		retries = append(retries, c.Retries)
		assert.Equal(t, 1, c.State.TurnCount, "a main request carries the iteration's state")
		draws = append(draws, c.JitterDraws)
		requests = append(requests, c.Stats.Requests)
		assert.Equal(t, loop.PurposeMain, c.Request.Purpose)
		assert.Equal(t, 1, c.Iteration.TurnCount, "all three are the first iteration's (turns count from 1)")
	}
	assert.Equal(t, []int{1, 2, 3}, attempts)
	assert.Equal(t, []int{0, 1, 2}, retries, "the retry layer's count before each attempt")
	assert.Equal(t, []int{0, 1, 2}, draws, "each retry draws its jitter once")
	assert.Equal(t, []int{0, 1, 2}, requests, "the attempts sent before this one")
	assert.Positive(t, calls[2].Stats.RetryDelayMS)
}
