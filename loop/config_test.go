package loop_test

import (
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunChecksModelSizes: a model's context window and output maximum
// must each be positive and at most MaxTokenCount; Run refuses a model
// breaking either and names it, and accepts the bounds themselves.
func TestRunChecksModelSizes(t *testing.T) {
	for _, c := range []struct {
		name           string
		window, output int
		want           string // empty: accepted
	}{
		{"smallest", 1, 1, ""},
		{"largest", loop.MaxTokenCount, loop.MaxTokenCount, ""},
		{"no window", 0, 8_000, `config: FallbackModel "m": context window 0 and max output 8000 must be positive`},
		{"no output", 200_000, 0, `config: FallbackModel "m": context window 200000 and max output 0 must be positive`},
		{"negative window", -1, 8_000, "must be positive"},
		{"window too large", loop.MaxTokenCount + 1, 8_000, "must be at most 1099511627776 (MaxTokenCount)"},
		{"output too large", 200_000, loop.MaxTokenCount + 1, "must be at most 1099511627776 (MaxTokenCount)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := &fakemodel.Model{Script: []fakemodel.Step{textStep}}
			fallback := loop.ModelInfo{Name: "m", ContextWindow: c.window, MaxOutputTokens: c.output}
			res, err := loop.Run(t.Context(), loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet, FallbackModel: fallback,
				Tools: &fakemodel.Tools{}}, []loop.Message{loop.UserText("hi")})
			if c.want == "" {
				require.NoError(t, err)
				assert.Equal(t, loop.Completed, res.Terminal)
				return
			}
			require.ErrorContains(t, err, c.want)
			assert.Nil(t, res)
			assert.Empty(t, model.Requests, "no request may be sent")
		})
	}
}

// TestRunChecksTheTokenBudget: the token budget may be anything from 0 to
// MaxTokenCount.
func TestRunChecksTheTokenBudget(t *testing.T) {
	for _, c := range []struct {
		budget int
		want   string
	}{
		{0, ""},
		{loop.MaxTokenCount, ""},
		{loop.MaxTokenCount + 1, "config: TokenBudget 1099511627777 is above 1099511627776 (MaxTokenCount)"},
		{-1, "config: TokenBudget -1 is negative"},
	} {
		model := &fakemodel.Model{Script: []fakemodel.Step{{Text: "done", OutputTokens: 50, Repeat: fakemodel.Forever}}}
		res, err := loop.Run(t.Context(), loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet, Tools: &fakemodel.Tools{},
			TokenBudget: c.budget}, []loop.Message{loop.UserText("hi")})
		if c.want == "" {
			require.NoError(t, err, "budget %d", c.budget)
			assert.Equal(t, loop.Completed, res.Terminal, "budget %d", c.budget)
			continue
		}
		require.EqualError(t, err, "loop: "+c.want)
		assert.Empty(t, model.Requests, "budget %d: no request may be sent", c.budget)
	}
}
