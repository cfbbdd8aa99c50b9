package loop_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The request event names the kind of the message the request ends with.
func TestRequestEventNamesTheLastMessageKind(t *testing.T) {
	res, _ := run(t, fixture{script: []fakemodel.Step{toolStep, textStep}})
	var last []string
	for _, r := range events[loop.RequestEvent](res.Trace) {
		last = append(last, r.Last)
	}
	if diff := cmp.Diff([]string{"user", "user:tool_result"}, last); diff != "" {
		t.Errorf("last kinds (-want +got):\n%s", diff)
	}
}

// Each stop-hook event carries the consecutive block count after it.
func TestStopHookEventCountsBlocksInARow(t *testing.T) {
	hooks := &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Block: "run the tests", Times: 2}, {}}}
	res, _ := run(t, fixture{hooks: hooks, script: []fakemodel.Step{textStep, textStep, textStep}})
	require.Equal(t, loop.Completed, res.Terminal)
	var rows []int
	for _, h := range events[loop.StopHook](res.Trace) {
		rows = append(rows, h.BlocksInRow)
	}
	// the allowing run ends the loop: the count it reports is the state's
	if diff := cmp.Diff([]int{1, 2, 2}, rows); diff != "" {
		t.Errorf("blocks in a row (-want +got):\n%s", diff)
	}
	assert.Equal(t, 2, res.State.StopHookBlocksInRow)
}

// The reactive-compact retry's state diff shows reactive_compacts_in_row.
func TestStateDiffShowsReactiveCompactsInRow(t *testing.T) {
	res, _ := run(t, fixture{initial: bigHistory(3, 1_000), script: []fakemodel.Step{ptl, summary, textStep}})
	tr := events[loop.TransitionEvent](res.Trace)
	require.Len(t, tr, 1)
	assert.Equal(t, loop.ReactiveCompactRetry, tr[0].Transition)
	assert.Contains(t, tr[0].Changes, loop.FieldChange{Field: "reactive_compacts_in_row", From: "0", To: "1"})
	assert.Contains(t, tr[0].Changes, loop.FieldChange{Field: "has_attempted_reactive_compact", From: "false", To: "true"})
}

// panickingCollapser panics on every call.
type panickingCollapser struct{}

func (panickingCollapser) Collapse(loop.CollapseInput) loop.CollapseResult { panic("collapse broke") }
func (panickingCollapser) Drain(loop.CollapseInput) loop.CollapseResult    { panic("drain broke") }

// A panicking collapser leaves the messages alone; the stage event says so.
func TestStageEventWhenTheCollapserPanics(t *testing.T) {
	p, err := loop.Seed().With("context_collapse", "true")
	require.NoError(t, err)
	res, err := loop.Run(t.Context(), loop.Config{Policy: p, Model: &fakemodel.Model{Script: []fakemodel.Step{textStep}}, Primary: sonnet,
		Tools: &fakemodel.Tools{}, Collapser: panickingCollapser{}}, []loop.Message{loop.UserText("fix the bug")})
	require.NoError(t, err)
	assert.Equal(t, loop.Completed, res.Terminal)
	var st []loop.Stage
	for _, s := range events[loop.Stage](res.Trace) {
		if s.Stage == loop.StageCollapse {
			st = append(st, s)
		}
	}
	require.Len(t, st, 1, "collapse stage events")
	assert.Equal(t, st[0].TokensBefore, st[0].TokensAfter, "a failed collapse changed the size")
	assert.Contains(t, st[0].Error, "collapser")
	assert.Contains(t, st[0].Error, "collapse broke")
	assert.Empty(t, st[0].Removed)
}

// The readable trace: one line per event, iterations flush left.
func TestReadableTrace(t *testing.T) {
	res, _ := run(t, fixture{script: []fakemodel.Step{toolStep, textStep}})
	var b strings.Builder
	require.NoError(t, loop.WriteReadable(&b, res.Trace))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, len(res.Trace))
	for i, e := range res.Trace {
		_, iter := e.(loop.IterationStart)
		assert.Equal(t, !iter, strings.HasPrefix(lines[i], "  "), "line %d %q indentation", i, lines[i])
		assert.Equal(t, strings.TrimPrefix(lines[i], "  "), loop.Describe(e))
	}
	assert.Equal(t, "iteration 1 (turn 1, 1 messages)", lines[0])
}

func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		e    loop.Event
		want string
	}{
		{loop.Stage{Stage: loop.StageSnip, TokensBefore: 900, TokensAfter: 500, Removed: []string{"a", "b"}},
			"stage        snip: 900 -> 500 tokens, 2 messages removed"},
		{loop.Stage{Stage: loop.StageCollapse, TokensBefore: 9, TokensAfter: 9, Error: "boom"}, "stage        collapse: 9 -> 9 tokens, failed: boom"},
		{loop.Compaction{Trigger: loop.TriggerAuto, TokensBefore: 100, Skipped: "circuit_breaker"}, "compaction   auto at 100 tokens skipped: circuit_breaker"},
		{loop.Compaction{Trigger: loop.TriggerAuto, TokensBefore: 100, Error: "x"}, "compaction   auto at 100 tokens failed: x"},
		{loop.Compaction{Trigger: loop.TriggerAuto, OK: true, TokensBefore: 100, TokensAfter: 10, Removed: []string{"a"}, Kept: 2},
			"compaction   auto: 100 -> 10 tokens, 1 messages removed, 2 kept"},
		{loop.RequestEvent{Purpose: loop.PurposeMain, Attempt: 2, Model: "m", Messages: 3, Last: "user", InputTokens: 40, MaxTokens: 8, NonStreaming: true},
			"request      main #2 to m: 3 messages (last user), 40 tokens in, max_tokens 8, non-streaming"},
		{loop.ResponseEvent{StopReason: loop.StopToolUse, Usage: loop.Usage{InputTokens: 4, OutputTokens: 5}, ToolUses: []string{"t1", "t2"}},
			"response     tool_use: 4 in / 5 out tokens, tool_use t1 t2"},
		{loop.RequestFailed{Kind: "overloaded", Status: 529, Message: "busy"}, "failed       overloaded 529: busy"},
		{loop.Retry{Attempt: 2, Reason: "overloaded", DelayMS: 500}, "retry        attempt 2 after overloaded, simulated delay 500 ms"},
		{loop.Retry{Attempt: 3, Reason: "stream_error", NonStreaming: true}, "retry        attempt 3 as non-streaming after stream_error"},
		{loop.Fallback{From: "a", To: "b", Orphans: []string{"x"}}, "fallback     a -> b (1 tool_uses discarded)"},
		{loop.ToolResultEvent{ToolUseID: "t1", Name: "Read", Tokens: 3, Synthetic: true, IsError: true, Error: "bad", Prevent: true},
			"tool_result  t1 (Read): 3 tokens, synthetic, error: bad, hook prevents continuation"},
		{loop.StopHook{Outcome: loop.HookBlock, Messages: []string{"a", "b"}}, "stop_hook    block: a; b"},
		{loop.ToolSummary{Text: "read a file"}, "summary     : read a file"},
		{loop.ToolSummary{Text: "read a file", Batch: []string{"t1", "t2"}}, "summary of t1 t2: read a file"},
		{loop.StopFailureHook{Error: "e", Failure: "f"}, "stop_failure told: e (no stop-failure hooks), failed: f"},
		{loop.TransitionEvent{Transition: loop.NextTurn, Changes: []loop.FieldChange{{Field: "transition", From: "", To: "next_turn"}, {Field: "turn_count", From: "1", To: "2"}}},
			"=> next_turn  [turn_count 1->2]"},
		{loop.TerminalEvent{Terminal: loop.Completed, Turn: 2, Iterations: 3}, "=> terminal completed (turn 2, 3 iterations)"},
		// an escalation drops the reply: the history is unchanged, nothing added
		{loop.StateRecord{TurnCount: 2, Transition: loop.MaxOutputTokensEscalate, MaxOutputTokensOverride: 1, ToolUseContext: loop.ToolUseContext{Model: "m"},
			Messages: loop.MessagesRecord{Count: 2, Tokens: 30}},
			"state        turn 2, after max_output_tokens_escalate, max_tokens override 1; model m; 2 messages, 30 tokens"},
	} {
		assert.Equal(t, c.want, loop.Describe(c.e))
	}
}

func TestRequestErrorText(t *testing.T) {
	assert.Equal(t, "529 overloaded: busy", (&loop.RequestError{Kind: loop.KindOverloaded, Status: 529, Message: "busy"}).Error())
	assert.Equal(t, "connection: reset", (&loop.RequestError{Kind: loop.KindConnection, Message: "reset"}).Error())
}

// Collapse under its thresholds changes nothing and records no stage.
func TestNoCollapseStageWhenNothingChanges(t *testing.T) {
	res, _ := run(t, fixture{script: []fakemodel.Step{toolStep, textStep}})
	require.True(t, loop.Seed().ContextCollapse, "the seed collapses")
	for _, s := range events[loop.Stage](res.Trace) {
		assert.NotEqual(t, loop.StageCollapse, s.Stage, "stage %+v", s)
	}
}

// A collapser that panics while draining (the prompt-too-long recovery)
// leaves the messages alone: the drain's stage event says so, and the
// recovery goes on to a reactive compaction.
func TestStageEventWhenTheCollapserPanicsDraining(t *testing.T) {
	p, err := loop.Seed().With("context_collapse", "true")
	require.NoError(t, err)
	model := &fakemodel.Model{Script: []fakemodel.Step{ptl, summary, textStep}}
	res, err := loop.Run(t.Context(), loop.Config{Policy: p, Model: model, Primary: sonnet, Tools: &fakemodel.Tools{},
		Collapser: panickingCollapser{}}, bigHistory(3, 1_000))
	require.NoError(t, err)
	assert.Equal(t, loop.Completed, res.Terminal)
	assert.Equal(t, []loop.Transition{loop.ReactiveCompactRetry}, res.Trace.Transitions())
	var drain []loop.Stage
	for _, s := range events[loop.Stage](res.Trace) {
		if s.Stage == loop.StageCollapseDrain {
			drain = append(drain, s)
		}
	}
	require.Len(t, drain, 1, "collapse drain stage events")
	assert.Equal(t, drain[0].TokensBefore, drain[0].TokensAfter, "a failed drain changed the size")
	assert.Contains(t, drain[0].Error, "collapser")
	assert.Contains(t, drain[0].Error, "drain broke")
	assert.Empty(t, drain[0].Removed)
	assert.Zero(t, drain[0].Changed)
}

// A span staged by context collapse is a change of the iteration: its
// transition's diff shows the count of staged spans.
func TestTransitionDiffShowsStagedCollapses(t *testing.T) {
	res, _ := run(t, fixture{policy: seedWith(t, "snip", "false"), initial: bigHistory(29, 5_000), script: []fakemodel.Step{toolStep, textStep}})
	require.Equal(t, loop.Completed, res.Terminal)
	var staged []int
	for _, s := range events[loop.Stage](res.Trace) {
		if s.Stage == loop.StageCollapse {
			staged = append(staged, s.Staged)
		}
	}
	require.Equal(t, []int{1}, staged, "collapse stage events' staged spans")
	tx := events[loop.TransitionEvent](res.Trace)
	require.Len(t, tx, 1)
	assert.Contains(t, tx[0].Changes, loop.FieldChange{Field: "staged_collapses", From: "0", To: "1"})
}

// panickingSnipper and panickingMicrocompactor panic on every call.
type (
	panickingSnipper        struct{}
	panickingMicrocompactor struct{}
)

func (panickingSnipper) Snip(loop.SnipInput) loop.SnipResult { panic("snip broke") }
func (panickingMicrocompactor) Microcompact(loop.MicrocompactInput) loop.MicrocompactResult {
	panic("microcompact broke")
}

// A snipper or a microcompactor that panics leaves the messages alone; its
// stage event says so.
func TestStageEventWhenSnipOrMicrocompactPanics(t *testing.T) {
	for _, c := range []struct {
		stage loop.StageName
		cfg   func(*loop.Config)
		want  string
	}{
		{loop.StageSnip, func(c *loop.Config) { c.Snipper = panickingSnipper{} }, "snipper panicked: snip broke"},
		{loop.StageMicrocompact, func(c *loop.Config) { c.Microcompactor = panickingMicrocompactor{} }, "microcompactor panicked: microcompact broke"},
	} {
		cfg := loop.Config{Policy: loop.Seed(), Model: &fakemodel.Model{Script: []fakemodel.Step{textStep}}, Primary: sonnet, Tools: &fakemodel.Tools{}}
		c.cfg(&cfg)
		res, err := loop.Run(t.Context(), cfg, []loop.Message{loop.UserText("fix the bug")})
		require.NoError(t, err)
		assert.Equal(t, loop.Completed, res.Terminal)
		var st []loop.Stage
		for _, s := range events[loop.Stage](res.Trace) {
			if s.Stage == c.stage {
				st = append(st, s)
			}
		}
		require.Len(t, st, 1, "%s stage events", c.stage)
		assert.Equal(t, c.want, st[0].Error)
		assert.Equal(t, st[0].TokensBefore, st[0].TokensAfter, "a failed %s changed the size", c.stage)
	}
}
