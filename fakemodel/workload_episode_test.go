package fakemodel

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/loop/looptest"
)

// calm is the default workload with no faults and a fixed plan of
// replies: every episode makes exactly that many replies.
func calm(replies int) Workload {
	w := DefaultWorkload()
	w.Faults = Faults{}
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
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestEpisodeConformance(t *testing.T) {
	newEpisode := func() *Episode {
		return DefaultWorkload().Episode(Seeds{Workload: 1, Faults: 2}, 200_000, func() {})
	}
	if err := looptest.CheckModel(func() loop.Model { return newEpisode() }); err != nil {
		t.Error(err)
	}
	if err := looptest.CheckTools(func() loop.Tools { return newEpisode() }); err != nil {
		t.Error(err)
	}
	if err := looptest.CheckStopHooks(func() loop.StopHooks { return newEpisode() }); err != nil {
		t.Error(err)
	}
}

func TestEpisodeFollowsItsPlan(t *testing.T) {
	for _, n := range []int{1, 2, 7, 40} {
		res := runEpisode(t, calm(n), loop.ClaudeCode(), Seeds{Workload: uint64(n), Faults: 1})
		if res.Terminal != loop.Completed {
			t.Fatalf("%d replies: terminal %s", n, res.Terminal)
		}
		if got := len(res.Trace.Requests()); got != n {
			t.Errorf("%d replies planned, %d requests made", n, got)
		}
		if res.State.TurnCount != n {
			t.Errorf("%d replies planned, turn count %d", n, res.State.TurnCount)
		}
	}
}

func TestEpisodeIsAFunctionOfItsSeeds(t *testing.T) {
	w := DefaultWorkload()
	w.Swarm = true
	trace := func(s Seeds) []byte {
		var b bytes.Buffer
		if err := runEpisode(t, w, loop.ClaudeCode(), s).Trace.WriteJSONL(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b := trace(Seeds{Workload: 11, Faults: 12}), trace(Seeds{Workload: 11, Faults: 12})
	if !bytes.Equal(a, b) {
		t.Fatal("the same seeds played two different episodes")
	}
	if bytes.Equal(a, trace(Seeds{Workload: 13, Faults: 12})) {
		t.Error("a different workload seed played the same episode")
	}
}

// TestContextGrowsByWhatWasAdded: each request's input is the previous
// one's plus the reply's output plus the tool results.
func TestContextGrowsByWhatWasAdded(t *testing.T) {
	res := runEpisode(t, calm(30), loop.ClaudeCode(), Seeds{Workload: 5, Faults: 6})
	prev, added := -1, 0
	for _, ev := range res.Trace {
		switch x := ev.(type) {
		case loop.RequestEvent:
			if prev >= 0 && x.InputTokens != prev+added {
				t.Fatalf("request of %d tokens after %d + %d added", x.InputTokens, prev, added)
			}
			prev, added = x.InputTokens, 0
		case loop.ResponseEvent:
			added += x.Usage.OutputTokens
			if c := x.Usage.CacheReadInputTokens + x.Usage.CacheCreationInputTokens + x.Usage.InputTokens; c != prev {
				t.Fatalf("usage reports %d input tokens for a request of %d", c, prev)
			}
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
	if !errors.As(err, &re) || re.Kind != loop.ErrPromptTooLong || re.Status != 400 {
		t.Fatalf("a request the size of the window: %v, want a 400 prompt_too_long", err)
	}
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
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	r := stream("a", 1_000)
	if r.StopReason != loop.StopMaxTokens || r.Usage.OutputTokens != 1_000 {
		t.Fatalf("a 2,500-token reply under a 1,000 cap: %s, %d tokens", r.StopReason, r.Usage.OutputTokens)
	}
	if r = stream("a", 4_000); r.StopReason != loop.StopToolUse || r.Usage.OutputTokens != 2_500 {
		t.Fatalf("the same request re-sent with a 4,000 cap: %s, %d tokens, want the whole reply with its tool use", r.StopReason, r.Usage.OutputTokens)
	}
	e = w.Episode(Seeds{}, 200_000, func() {})
	stream("a", 1_000)
	if r = stream(loop.RecoveryNudge, 1_000); r.StopReason != loop.StopMaxTokens {
		t.Fatalf("after the first nudge: %s", r.StopReason)
	}
	if r = stream(loop.RecoveryNudge+" ", 1_000); r.StopReason != loop.StopToolUse || r.Usage.OutputTokens != 500 {
		t.Fatalf("after the second nudge: %s, %d tokens, want the last 500 with the tool use", r.StopReason, r.Usage.OutputTokens)
	}
}

func TestSummaryIsCutAtTheCap(t *testing.T) {
	e := calm(3).Episode(Seeds{}, 200_000, func() {})
	resp, err := e.Stream(context.Background(), loop.Request{Purpose: loop.PurposeCompact, MaxTokens: 8_000, InputTokens: 150_000,
		Messages: []loop.Message{{ID: "x", Role: loop.RoleUser}}}, func(loop.Block) {})
	if err != nil || resp.Usage.OutputTokens != 8_000 || resp.StopReason != loop.StopMaxTokens {
		t.Fatalf("a ~31k summary under an 8,000 cap: %+v, %v", resp, err)
	}
}

// TestCompactionShrinksToTheSummary: an auto-compaction brings the
// context down to the summary (~31k) plus the preserved tail.
func TestCompactionShrinksToTheSummary(t *testing.T) {
	res := runEpisode(t, calm(400), loop.ClaudeCode(), Seeds{Workload: 3, Faults: 4})
	n := 0
	for _, ev := range res.Trace {
		if c, ok := ev.(loop.Compaction); ok && c.OK {
			n++
			if c.TokensBefore < 167_000 || c.TokensAfter < 25_000 || c.TokensAfter > 70_000 {
				t.Errorf("compaction %d -> %d tokens", c.TokensBefore, c.TokensAfter)
			}
		}
	}
	if n == 0 {
		t.Fatal("400 replies and no compaction")
	}
}

func TestAPIFaultsAndBursts(t *testing.T) {
	w := calm(3)
	w.Faults.Overloaded = 1
	res := runEpisode(t, w, loop.ClaudeCode(), Seeds{})
	if res.Terminal != loop.APIError {
		t.Fatalf("always overloaded: terminal %s, want api_error", res.Terminal)
	}
	w.Faults = Faults{ServerError: 0.5, Persist: 1}
	res = runEpisode(t, w, loop.ClaudeCode(), Seeds{})
	if res.Terminal != loop.APIError {
		t.Fatalf("a fault that persists forever: terminal %s, want api_error", res.Terminal)
	}
}

func TestMediaFailsUntilCompacted(t *testing.T) {
	w := calm(3)
	w.Faults.MediaTooLarge = 1
	w.CompactionRework = Geometric{}
	res := runEpisode(t, w, loop.ClaudeCode(), Seeds{})
	// every tool result carries an oversized image, so every request after
	// a tool round fails 413 until a reactive compaction summarises that
	// round: after the prompt and one round claude-code keeps nothing
	// verbatim (as the released agent does), so the image goes with it
	// and the retry gets through
	if res.Terminal != loop.Completed {
		t.Fatalf("terminal %s, want completed", res.Terminal)
	}
	compactions, tooLarge := 0, 0
	for _, tr := range res.Trace.Transitions() {
		if tr == loop.ReactiveCompactRetry {
			compactions++
		}
	}
	for _, f := range res.Trace {
		if x, ok := f.(loop.RequestFailed); ok && x.Kind == loop.ErrRequestTooLarge {
			tooLarge++
		}
	}
	if compactions == 0 || compactions != tooLarge {
		t.Errorf("%d reactive compactions for %d 413s, want one each", compactions, tooLarge)
	}
	e := w.Episode(Seeds{}, 200_000, func() {})
	e.media = "toolu_9"
	req := loop.Request{Purpose: loop.PurposeMain, MaxTokens: 1_000, InputTokens: 100,
		Messages: []loop.Message{{ID: "a", Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockText, Text: "x"}}}}}
	if _, err := e.Stream(context.Background(), req, func(loop.Block) {}); err != nil || e.media != "" {
		t.Errorf("a request without the image: %v (media %q)", err, e.media)
	}
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
	if res.Terminal != loop.Completed || blocks != 1 {
		t.Errorf("block once, then pass: terminal %s after %d blocks", res.Terminal, blocks)
	}
	// a hook that always blocks a model that answers again at once trips
	// claude-code's cap of 8 blocks in a row
	w.Faults.StopHookRepeat = 1
	w.AfterBlock = Geometric{Max: 10}
	res = runEpisode(t, w, loop.ClaudeCode(), Seeds{Workload: 1})
	if res.Terminal != loop.Completed || res.Trace[len(res.Trace)-1].(loop.TerminalEvent).Message != loop.BlockCapNotice {
		t.Errorf("a hook that always blocks under claude-code: %s, want the block cap's completed", res.Terminal)
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
	if err != nil {
		t.Fatal(err)
	}
	if !res.Halted {
		t.Errorf("terminal %s, want a halt at the iteration limit", res.Terminal)
	}
}

func TestAborts(t *testing.T) {
	w := calm(10)
	w.Faults.Abort = 1
	seen := map[loop.Terminal]bool{}
	for s := range uint64(40) {
		res := runEpisode(t, w, loop.ClaudeCode(), Seeds{Workload: s, Faults: s})
		seen[res.Terminal] = true
	}
	if !seen[loop.AbortedStreaming] || !seen[loop.AbortedTools] || len(seen) != 2 {
		t.Errorf("every episode aborts, while streaming or in tools: %v", seen)
	}
}
