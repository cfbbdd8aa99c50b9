package loop_test

import (
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A failed request's input counts as failed input, not as input.
func TestStatsFailedRequestInput(t *testing.T) {
	// the seed sends a 500 once and completes after the stop-failure hooks
	res, model := run(t, fixture{initial: bigHistory(2, 1_000), script: []fakemodel.Step{{Kind: fakemodel.ServerError}}})
	require.Equal(t, loop.Completed, res.Terminal)
	require.Len(t, model.Requests, 1)
	require.Positive(t, model.Requests[0].InputTokens)
	assert.Equal(t, model.Requests[0].InputTokens, res.Stats.FailedInputTokens)
	assert.Zero(t, res.Stats.InputTokens, "input of successful requests")
	assert.Equal(t, model.Requests[0].InputTokens, res.Stats.PeakTokens)
	assert.Equal(t, 1, res.Stats.Requests)
}

// Input tokens include the cache reads and writes the API reports.
func TestStatsInputIncludesCache(t *testing.T) {
	res := runModel(t, usageModel{usage: loop.Usage{InputTokens: 10, CacheReadInputTokens: 100, CacheCreationInputTokens: 1_000, OutputTokens: 5}})
	assert.Equal(t, loop.Completed, res.Terminal)
	assert.Equal(t, 1_110, res.Stats.InputTokens)
	assert.Equal(t, 5, res.Stats.OutputTokens)
	assert.Zero(t, res.Stats.FailedInputTokens)
	assert.Zero(t, res.Stats.DiscardedOutputTokens)
}

// A reply the loop drops (escalating a truncated one) counts as
// discarded output.
func TestStatsDiscardedOutput(t *testing.T) {
	cut := fakemodel.Step{Kind: fakemodel.Truncated, Text: "partial answer", OutputTokens: 4_000}
	res, _ := run(t, fixture{script: []fakemodel.Step{cut, textStep}})
	require.Equal(t, loop.Completed, res.Terminal, "%v", res.Trace.Transitions())
	assert.Equal(t, []loop.Transition{loop.MaxOutputTokensEscalate}, res.Trace.Transitions())
	assert.Equal(t, 4_000, res.Stats.DiscardedOutputTokens)
	assert.Equal(t, 4_050, res.Stats.OutputTokens, "output counts every reply, dropped or not")
}

// A partial reply dropped by the fallback counts as discarded output.
func TestStatsDiscardedOnFallback(t *testing.T) {
	haiku := loop.ModelInfo{Name: "haiku", ContextWindow: 200_000, MaxOutputTokens: 8_000}
	res, _ := run(t, fixture{fallback: haiku, script: []fakemodel.Step{{Kind: fakemodel.FallbackTriggered, Text: "half an answer", After: 1}, textStep}})
	require.Len(t, events[loop.Fallback](res.Trace), 1)
	dropped := loop.Message{Role: loop.RoleAssistant, Blocks: []loop.Block{{Type: loop.BlockText, Text: "half an answer"}}}
	assert.Equal(t, loop.CharEstimator{}.Estimate(dropped), res.Stats.DiscardedOutputTokens)
}

// A malformed tool-use reply the loop re-asks for is discarded output; the
// last one, kept in the history when the retries run out, is not.
func TestStatsDiscardedOnMalformedToolUse(t *testing.T) {
	mal := fakemodel.Step{Kind: fakemodel.MalformedToolUse, Text: "I will read the file", OutputTokens: 300}
	retried, _ := ccRun(t, fixture{script: []fakemodel.Step{mal, textStep}})
	require.Equal(t, loop.Completed, retried.Terminal)
	require.Equal(t, []loop.Transition{loop.MalformedToolUseRetry}, retried.Trace.Transitions())
	assert.Equal(t, 300, retried.Stats.DiscardedOutputTokens)
	assert.Equal(t, 350, retried.Stats.OutputTokens)

	exhausted, _ := ccRun(t, fixture{script: []fakemodel.Step{mal, mal, mal}})
	require.Equal(t, loop.MalformedToolUseExhausted, exhausted.Terminal)
	assert.Equal(t, 600, exhausted.Stats.DiscardedOutputTokens, "the two re-asked replies, not the one the history keeps")
	last := exhausted.State.Messages[len(exhausted.State.Messages)-2]
	assert.Equal(t, "I will read the file", last.Text(), "the last malformed reply stays in the history")
}
