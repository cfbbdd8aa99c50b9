package fakemodel

import (
	"bytes"
	"context"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/loop/looptest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// calm is the default workload with no faults, one user (no population
// spread) and a fixed plan of replies: every episode makes exactly that
// many replies.
func calm(replies int) Workload {
	w := DefaultWorkload()
	w.Faults = Faults{}
	w.Population = Population{}
	w.Replies = LogNormal{Median: float64(replies), Min: 1, Max: replies}
	return w
}

var simModel = loop.ModelInfo{Name: "m", ContextWindow: 200_000, MaxOutputTokens: 64_000}

// runEpisode runs one episode of w under policy p.
func runEpisode(t *testing.T, w Workload, p loop.Policy, seeds Seeds) *loop.Result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := w.Episode(seeds, simModel.ContextWindow, cancel)
	res, err := loop.Run(ctx, loop.Config{Policy: p, Model: e, Primary: simModel, Tools: e, StopHooks: e, Seed: seeds.Faults}, e.Initial())
	require.NoError(t, err)
	return res
}

func TestEpisodeConformance(t *testing.T) {
	newEpisode := func() *Episode {
		return DefaultWorkload().Episode(Seeds{Workload: 1, Faults: 2}, 200_000, func() {})
	}
	assert.NoError(t, looptest.CheckModel(func() loop.Model { return newEpisode() }))
	assert.NoError(t, looptest.CheckTools(func() loop.Tools { return newEpisode() }))
	assert.NoError(t, looptest.CheckStopHooks(func() loop.StopHooks { return newEpisode() }))
}

func TestEpisodeFollowsItsPlan(t *testing.T) {
	for _, n := range []int{1, 2, 7, 40} {
		res := runEpisode(t, calm(n), loop.ClaudeCode(), Seeds{Workload: uint64(n), Faults: 1})
		require.Equal(t, loop.Completed, res.Terminal, "%d replies: terminal", n)
		assert.Len(t, res.Trace.Requests(), n, "%d replies planned: requests made", n)
		assert.Equal(t, n, res.State.TurnCount, "%d replies planned: turn count", n)
	}
}

func TestEpisodeIsAFunctionOfItsSeeds(t *testing.T) {
	w := DefaultWorkload()
	w.Swarm = true
	trace := func(s Seeds) []byte {
		var b bytes.Buffer
		require.NoError(t, runEpisode(t, w, loop.ClaudeCode(), s).Trace.WriteJSONL(&b))
		return b.Bytes()
	}
	a, b := trace(Seeds{Workload: 11, Faults: 12}), trace(Seeds{Workload: 11, Faults: 12})
	require.True(t, bytes.Equal(a, b), "the same seeds played two different episodes")
	assert.False(t, bytes.Equal(a, trace(Seeds{Workload: 13, Faults: 12})), "a different workload seed played the same episode")
}

// TestContextGrowsByWhatWasAdded: each request's input is the previous
// one's plus the reply's output plus the tool results.
func TestContextGrowsByWhatWasAdded(t *testing.T) {
	res := runEpisode(t, calm(30), loop.ClaudeCode(), Seeds{Workload: 5, Faults: 6})
	prev, added := -1, 0
	for _, ev := range res.Trace {
		switch x := ev.(type) {
		case loop.RequestEvent:
			if prev >= 0 {
				require.Equal(t, prev+added, x.InputTokens, "a request after %d + %d added", prev, added)
			}
			prev, added = x.InputTokens, 0
		case loop.ResponseEvent:
			added += x.Usage.OutputTokens
			require.Equal(t, prev, x.Usage.CacheReadInputTokens+x.Usage.CacheCreationInputTokens+x.Usage.InputTokens,
				"input tokens the usage reports for the request")
		case loop.ToolResultEvent:
			added += x.Tokens
		}
	}
}

func TestPromptTooLongOverTheWindow(t *testing.T) {
	e := calm(5).Episode(Seeds{}, 1_000, func() {})
	_, err := e.Stream(context.Background(), loop.Request{Purpose: loop.PurposeMain, MaxTokens: 100, InputTokens: 1_000,
		Messages: []loop.Message{{ID: "a", Role: loop.RoleUser}}}, func(loop.Block) {})
	var re *loop.RequestError
	require.ErrorAs(t, err, &re, "a request the size of the window")
	assert.Equal(t, loop.KindPromptTooLong, re.Kind, "a request the size of the window")
	assert.Equal(t, 400, re.Status, "a request the size of the window")
}

// TestOutputIsCutAtTheCap: a reply longer than max_tokens is cut there;
// after a recovery nudge the model writes the rest, and a re-sent request
// (escalation) gets the same reply.
func TestOutputIsCutAtTheCap(t *testing.T) {
	w := calm(3)
	w.Output = LogNormal{Median: 2_500, Max: 1_000_000}
	e := w.Episode(Seeds{}, 200_000, func() {})
	stream := func(last string, maxTokens int) loop.Response {
		t.Helper()
		resp, err := e.Stream(context.Background(), loop.Request{Purpose: loop.PurposeMain, MaxTokens: maxTokens, InputTokens: 30_000,
			Messages: []loop.Message{{ID: "start", Role: loop.RoleUser}, {ID: last, Role: loop.RoleUser,
				Blocks: []loop.Block{{Type: loop.BlockText, Text: last}}}}}, func(loop.Block) {})
		require.NoError(t, err)
		return resp
	}
	r := stream("a", 1_000)
	require.Equal(t, loop.StopMaxTokens, r.StopReason, "a 2,500-token reply under a 1,000 cap")
	require.Equal(t, 1_000, r.Usage.OutputTokens, "a 2,500-token reply under a 1,000 cap")
	r = stream("a", 4_000)
	require.Equal(t, loop.StopToolUse, r.StopReason, "the same request re-sent with a 4,000 cap: want the whole reply with its tool use")
	require.Equal(t, 2_500, r.Usage.OutputTokens, "the same request re-sent with a 4,000 cap: want the whole reply with its tool use")
	e = w.Episode(Seeds{}, 200_000, func() {})
	stream("a", 1_000)
	r = stream(loop.RecoveryNudge, 1_000)
	require.Equal(t, loop.StopMaxTokens, r.StopReason, "after the first nudge")
	r = stream(loop.RecoveryNudge+" ", 1_000)
	require.Equal(t, loop.StopToolUse, r.StopReason, "after the second nudge: want the last 500 with the tool use")
	require.Equal(t, 500, r.Usage.OutputTokens, "after the second nudge: want the last 500 with the tool use")
}

func TestSummaryIsCutAtTheCap(t *testing.T) {
	e := calm(3).Episode(Seeds{}, 200_000, func() {})
	resp, err := e.Stream(context.Background(), loop.Request{Purpose: loop.PurposeCompact, MaxTokens: 8_000, InputTokens: 150_000,
		Messages: []loop.Message{{ID: "x", Role: loop.RoleUser}}}, func(loop.Block) {})
	require.NoError(t, err, "a ~31k summary under an 8,000 cap")
	assert.Equal(t, 8_000, resp.Usage.OutputTokens, "a ~31k summary under an 8,000 cap: %+v", resp)
	assert.Equal(t, loop.StopMaxTokens, resp.StopReason, "a ~31k summary under an 8,000 cap: %+v", resp)
}

// TestCompactionShrinksToTheSummary: an auto-compaction brings the
// context down to the summary (~31k) plus the preserved tail.
func TestCompactionShrinksToTheSummary(t *testing.T) {
	res := runEpisode(t, calm(400), loop.ClaudeCode(), Seeds{Workload: 3, Faults: 4})
	n := 0
	for _, ev := range res.Trace {
		if c, ok := ev.(loop.Compaction); ok && c.OK {
			n++
			assert.GreaterOrEqual(t, c.TokensBefore, 167_000, "compaction %d -> %d tokens", c.TokensBefore, c.TokensAfter)
			assert.GreaterOrEqual(t, c.TokensAfter, 25_000, "compaction %d -> %d tokens", c.TokensBefore, c.TokensAfter)
			assert.LessOrEqual(t, c.TokensAfter, 70_000, "compaction %d -> %d tokens", c.TokensBefore, c.TokensAfter)
		}
	}
	require.NotZero(t, n, "400 replies and no compaction")
}

func TestAPIFaultsAndBursts(t *testing.T) {
	w := calm(3)
	w.Faults.Overloaded = 1
	res := runEpisode(t, w, loop.ClaudeCode(), Seeds{})
	require.Equal(t, loop.APIError, res.Terminal, "always overloaded")
	w.Faults = Faults{ServerError: 0.5, Persist: 1}
	res = runEpisode(t, w, loop.ClaudeCode(), Seeds{})
	require.Equal(t, loop.APIError, res.Terminal, "a fault that persists forever")
}

func TestMediaFailsUntilCompacted(t *testing.T) {
	w := calm(3)
	w.Faults.MediaTooLarge = 1
	w.CompactionRework = Geometric{}
	// every tool result carries an oversized image, so every request after
	// a tool round fails 413 until a compaction summarises that round.
	// claude-code compacts a 413 as an auto-compaction, which needs two
	// rounds: after one it ends image_error, as the released agent does
	// (observed case request-too-large-1-round)
	res := runEpisode(t, w, loop.ClaudeCode(), Seeds{})
	require.Equal(t, loop.ImageError, res.Terminal, "claude-code: a 413 after one round")
	assert.NotContains(t, res.Trace.Transitions(), loop.ReactiveCompactRetry, "claude-code: a 413 after one round")
	// compacted as a prompt-too-long is, nothing of one round is kept
	// verbatim, so the image goes with the summary and the retry gets
	// through
	p := loop.ClaudeCode()
	p.RequestTooLargeAsAuto = false
	res = runEpisode(t, w, p, Seeds{})
	require.Equal(t, loop.Completed, res.Terminal)
	compactions, tooLarge := 0, 0
	for _, tr := range res.Trace.Transitions() {
		if tr == loop.ReactiveCompactRetry {
			compactions++
		}
	}
	for _, f := range res.Trace {
		if x, ok := f.(loop.RequestFailed); ok && x.Kind == loop.KindRequestTooLarge {
			tooLarge++
		}
	}
	assert.Positive(t, compactions, "reactive compactions")
	assert.Equal(t, tooLarge, compactions, "reactive compactions for %d 413s, want one each", tooLarge)
	e := w.Episode(Seeds{}, 200_000, func() {})
	e.media = "toolu_9"
	req := loop.Request{Purpose: loop.PurposeMain, MaxTokens: 1_000, InputTokens: 100,
		Messages: []loop.Message{{ID: "a", Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockText, Text: "x"}}}}}
	_, err := e.Stream(context.Background(), req, func(loop.Block) {})
	assert.NoError(t, err, "a request without the image")
	assert.Empty(t, e.media, "a request without the image")
}

func TestStopHooksBlockAndRepeat(t *testing.T) {
	w := calm(2)
	w.Faults.StopHookBlock, w.Faults.StopHookRepeat = 1, 0
	res := runEpisode(t, w, loop.ClaudeCode(), Seeds{Workload: 1})
	blocks := 0
	for _, tr := range res.Trace.Transitions() {
		if tr == loop.StopHookBlocking {
			blocks++
		}
	}
	assert.Equal(t, loop.Completed, res.Terminal, "block once, then pass")
	assert.Equal(t, 1, blocks, "block once, then pass")
	// a hook that always blocks a model that answers again at once trips
	// claude-code's cap of 8 blocks in a row
	w.Faults.StopHookRepeat = 1
	w.AfterBlock = Geometric{Max: 10}
	res = runEpisode(t, w, loop.ClaudeCode(), Seeds{Workload: 1})
	if assert.Equal(t, loop.Completed, res.Terminal, "a hook that always blocks under claude-code: want the block cap's completed") {
		last, ok := res.Trace[len(res.Trace)-1].(loop.TerminalEvent)
		require.True(t, ok, "the trace ends with its terminal event")
		assert.Equal(t, loop.BlockCapNotice, last.Message, "a hook that always blocks under claude-code: want the block cap's completed")
	}
}

// TestBlockCapResetsOnToolTurns: when the model answers each block with
// more tool work, every tool turn resets claude-code's count of blocks in
// a row, so the cap never trips and a hook that always blocks keeps the
// session going until the harness's iteration limit.
func TestBlockCapResetsOnToolTurns(t *testing.T) {
	w := calm(2)
	w.Faults.StopHookBlock, w.Faults.StopHookRepeat = 1, 1
	w.AfterBlock = Geometric{Min: 1, Mean: 1, Max: 1}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := w.Episode(Seeds{Workload: 1}, simModel.ContextWindow, cancel)
	res, err := loop.Run(ctx, loop.Config{Policy: loop.ClaudeCode(), Model: e, Primary: simModel, Tools: e, StopHooks: e,
		IterationLimit: 300, DiscardTrace: true}, e.Initial())
	require.NoError(t, err)
	assert.True(t, res.Halted, "terminal %s, want a halt at the iteration limit", res.Terminal)
}

func TestAborts(t *testing.T) {
	w := calm(10)
	w.Faults.Abort = 1
	seen := map[loop.Terminal]bool{}
	for s := range uint64(40) {
		res := runEpisode(t, w, loop.ClaudeCode(), Seeds{Workload: s, Faults: s})
		seen[res.Terminal] = true
	}
	assert.Equal(t, map[loop.Terminal]bool{loop.AbortedStreaming: true, loop.AbortedTools: true}, seen,
		"every episode aborts, while streaming or in tools")
}
