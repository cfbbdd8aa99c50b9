package loop_test

import (
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replayRecords rebuilds the history's IDs and sizes from the state
// records, failing when a record's delta does not fit the one before.
func replayRecords(t *testing.T, tr loop.Trace) map[string]int {
	t.Helper()
	cur := map[string]int{}
	for i, e := range tr {
		x, ok := e.(loop.StateRecord)
		if !ok {
			continue
		}
		for _, id := range x.Messages.Removed {
			_, ok := cur[id]
			require.True(t, ok, "event %d removes %s, which the last record did not hold", i, id)
			delete(cur, id)
		}
		for _, m := range x.Messages.Resized {
			_, ok := cur[m.ID]
			require.True(t, ok, "event %d resizes %s, which the last record did not hold", i, m.ID)
			cur[m.ID] = m.Tokens
		}
		for _, m := range x.Messages.Added {
			_, ok := cur[m.ID]
			require.False(t, ok, "event %d adds %s twice", i, m.ID)
			cur[m.ID] = m.Tokens
		}
		sum := 0
		for _, n := range cur {
			sum += n
		}
		require.Len(t, cur, x.Messages.Count, "event %d: count", i)
		require.Equal(t, x.Messages.Tokens, sum, "event %d: tokens", i)
	}
	return cur
}

func TestStateRecordClosesEveryIteration(t *testing.T) {
	res, _ := run(t, busyFixture())
	require.Equal(t, loop.Completed, res.Terminal)

	// one record per iteration: after its transition, or just before its
	// terminal
	var records []loop.StateRecord
	for i, e := range res.Trace {
		switch x := e.(type) {
		case loop.StateRecord:
			records = append(records, x)
		case loop.TransitionEvent:
			require.Less(t, i+1, len(res.Trace))
			assert.IsType(t, loop.StateRecord{}, res.Trace[i+1], "event %d: a transition is followed by the state record", i)
		case loop.TerminalEvent:
			assert.IsType(t, loop.StateRecord{}, res.Trace[i-1], "the terminal follows the last state record")
		}
	}
	require.Len(t, records, res.Stats.Iterations)

	// the last record is the final state
	last, s := records[len(records)-1], res.State
	assert.Equal(t, s.TurnCount, last.TurnCount)
	assert.Equal(t, s.Transition, last.Transition)
	assert.Equal(t, s.MaxOutputTokensRecoveryCount, last.MaxOutputTokensRecoveryCount)
	assert.Equal(t, s.HasAttemptedReactiveCompact, last.HasAttemptedReactiveCompact)
	assert.Equal(t, s.MaxOutputTokensOverride, last.MaxOutputTokensOverride)
	assert.Equal(t, s.StopHookActive, last.StopHookActive)
	assert.Equal(t, s.AutoCompactTracking, last.AutoCompactTracking)
	assert.Equal(t, s.ToolUseContext, last.ToolUseContext)
	assert.Equal(t, []string{"Read", "Bash"}, last.ToolUseContext.Tools)

	// the records' deltas add up to the final history, IDs and sizes
	want := map[string]int{}
	for _, m := range s.Messages {
		want[m.ID] = m.Tokens
	}
	assert.Equal(t, want, replayRecords(t, res.Trace))

	// the fields docs/spec.md §1 lists are all there, each at a value it takes
	// in this run
	var pending, attempted, override, active bool
	for _, r := range records {
		pending = pending || r.PendingToolUseSummary != nil
		attempted = attempted || r.HasAttemptedReactiveCompact
		override = override || r.MaxOutputTokensOverride > 0
		active = active || r.StopHookActive
	}
	assert.True(t, pending && attempted && override && active, "pending %t attempted %t override %t active %t", pending, attempted, override, active)
	assert.Equal(t, []string{"toolu_1_1", "toolu_1_2", "toolu_1_3", "toolu_1_4", "toolu_1_5"}, records[0].PendingToolUseSummary.Batch)
}

func TestStateRecordShowsAutoCompactTrackingAndResizes(t *testing.T) {
	tool := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}}
	res, _ := ccRun(t, fixture{initial: history(967_000), script: []fakemodel.Step{summary, tool, textStep}})
	require.Equal(t, loop.Completed, res.Terminal)
	records := events[loop.StateRecord](res.Trace)
	require.Len(t, records, 2)
	tr := records[0].AutoCompactTracking
	require.NotNil(t, tr, "the first record shows the auto-compact")
	assert.True(t, tr.Compacted)
	assert.Equal(t, "compact-1", tr.TurnID)
	assert.Equal(t, 1, tr.TurnCounter, "the tool turn after the compaction")
	assert.NotContains(t, records[0].Messages.Added, loop.MessageRef{ID: "m1", Tokens: 965_000}, "the compacted prompt left")

	// the transition's diff covers what the iteration changed before it:
	// the auto-compact in 2.1, not only the next_turn itself
	tx := events[loop.TransitionEvent](res.Trace)
	require.Len(t, tx, 1)
	fields := map[string]loop.FieldChange{}
	for _, c := range tx[0].Changes {
		fields[c.Field] = c
	}
	require.Contains(t, fields, "auto_compact_tracking")
	assert.Equal(t, "none", fields["auto_compact_tracking"].From)
	assert.Contains(t, fields["auto_compact_tracking"].To, "compacted:true")

	// microcompact clears old results in place: the record says which
	// messages shrank
	endless := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}, Repeat: 8}
	tools := &fakemodel.Tools{ByName: map[string]fakemodel.Tool{"Read": {Tokens: 3_000}}}
	res, _ = run(t, fixture{script: []fakemodel.Step{endless, textStep}, tools: tools})
	resized := 0
	for _, r := range events[loop.StateRecord](res.Trace) {
		resized += len(r.Messages.Resized)
	}
	assert.Positive(t, resized, "microcompact resized no recorded message")
	final := map[string]int{}
	for _, m := range res.State.Messages {
		final[m.ID] = m.Tokens
	}
	assert.Equal(t, final, replayRecords(t, res.Trace))
}

func TestFallbackShowsInTheIterationsDiff(t *testing.T) {
	haiku := loop.ModelInfo{Name: "haiku", ContextWindow: 200_000, MaxOutputTokens: 8_000}
	res, _ := run(t, fixture{fallback: haiku, script: []fakemodel.Step{{Kind: fakemodel.FallbackTriggered}, toolStep, textStep}})
	require.Equal(t, loop.Completed, res.Terminal)
	tx := events[loop.TransitionEvent](res.Trace)
	require.NotEmpty(t, tx)
	assert.Contains(t, tx[0].Changes, loop.FieldChange{Field: "model", From: "sonnet", To: "haiku"})
	assert.Equal(t, "haiku", events[loop.StateRecord](res.Trace)[0].ToolUseContext.Model)
}

func TestPendingSummaryAtTheEndLeavesAnEvent(t *testing.T) {
	sum := &fakemodel.Summarizer{Outcomes: []fakemodel.SummaryOutcome{{Text: "read a.go"}}}
	endless := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}, Repeat: fakemodel.Forever}
	res, _ := run(t, fixture{policy: seedWith(t, "max_turns", "2"), script: []fakemodel.Step{endless}, summary: sum})
	require.Equal(t, loop.MaxTurns, res.Terminal)
	sums := events[loop.ToolSummary](res.Trace)
	require.Len(t, sums, 2, "the first batch's summary emitted, the second's left unsent")
	assert.False(t, sums[0].Unsent)
	assert.Equal(t, loop.ToolSummary{Batch: []string{"toolu_2_1"}, Unsent: true}, sums[1])
	records := events[loop.StateRecord](res.Trace)
	require.NotNil(t, records[len(records)-1].PendingToolUseSummary, "the final record shows the summary pending")
	assert.Nil(t, res.State.PendingToolUseSummary, "the run settles it")
}

func TestNoStateRecordsWithoutTraceOrObserver(t *testing.T) {
	seen := 0
	cfg := loop.Config{Policy: loop.Seed(), Model: &fakemodel.Model{Script: []fakemodel.Step{toolStep, textStep}}, Primary: sonnet,
		Tools: &fakemodel.Tools{}, DiscardTrace: true, Observer: func(e loop.Event) {
			if _, ok := e.(loop.StateRecord); ok {
				seen++
			}
		}}
	_, err := loop.Run(t.Context(), cfg, []loop.Message{loop.UserText("go")})
	require.NoError(t, err)
	assert.Equal(t, 2, seen, "an observer sees the records")
}

// checkRecords fails unless the state records' deltas add up to the run's
// final history, IDs and sizes.
func checkRecords(t *testing.T, res *loop.Result) {
	t.Helper()
	final := map[string]int{}
	for _, m := range res.State.Messages {
		final[m.ID] = m.Tokens
	}
	assert.Equal(t, final, replayRecords(t, res.Trace), "the history the state records add up to")
}

// A compaction that summarises one message leaves a history as long as
// before, its newest message where it was: the record still shows the
// summary in and the prompt out.
func TestStateRecordAfterACompactionOfOneMessage(t *testing.T) {
	initial := history(960_000)
	tools := &fakemodel.Tools{Default: fakemodel.Tool{Tokens: 20_000}}
	compactor := &fakemodel.Compactor{Outcomes: []fakemodel.CompactOutcome{{Keep: 100, SummaryTokens: 3_000}}}
	res, _ := ccRun(t, fixture{initial: initial, tools: tools, compactor: compactor,
		script: []fakemodel.Step{{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}, OutputTokens: 100}, textStep}})
	require.Equal(t, loop.Completed, res.Terminal)
	c := events[loop.Compaction](res.Trace)
	require.Len(t, c, 1)
	require.True(t, c[0].OK)
	require.Len(t, c[0].Removed, 1, "the compaction summarised the prompt alone")
	records := events[loop.StateRecord](res.Trace)
	require.Len(t, records, 2)
	assert.Equal(t, []string{c[0].Removed[0]}, records[1].Messages.Removed, "the prompt left")
	assert.Len(t, records[1].Messages.Added, 2, "the summary and the reply came")
	assert.Empty(t, records[1].Messages.Resized, "no message kept changed size")
	checkRecords(t, res)
	// the boundary leaves next: its stage measures the same history after
	var boundary []loop.Stage
	for _, st := range events[loop.Stage](res.Trace) {
		if st.Stage == loop.StageBoundary {
			boundary = append(boundary, st)
		}
	}
	require.Len(t, boundary, 1)
	assert.Equal(t, c[0].TokensAfter, boundary[0].TokensAfter, "the history after the boundary, as the compaction measured it")
	assert.Less(t, boundary[0].TokensBefore-boundary[0].TokensAfter, 100, "only the boundary left")
}
