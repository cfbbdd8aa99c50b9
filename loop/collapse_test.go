package loop_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rounds is a prompt p followed by n exchanges k (a<k> tool_use, r<k>
// its result, k from 1), each message size tokens: 2n+1 messages.
func rounds(n, size int) []loop.Message {
	msgs := []loop.Message{{ID: "p", Role: loop.RoleUser, Tokens: size, Blocks: []loop.Block{{Type: loop.BlockText, Text: "go"}}}}
	for i := 1; i <= n; i++ {
		k := strconv.Itoa(i)
		msgs = append(msgs,
			loop.Message{ID: "a" + k, Role: loop.RoleAssistant, Tokens: size, Blocks: []loop.Block{{Type: loop.BlockToolUse, ID: "t" + k, Name: "Read", Input: "{}"}}},
			loop.Message{ID: "r" + k, Role: loop.RoleUser, Tokens: size, Blocks: []loop.Block{{Type: loop.BlockToolResult, ToolUseID: "t" + k, Text: "data", Tokens: size}}})
	}
	return msgs
}

// msgIDs lists the messages' IDs in order.
func msgIDs(msgs []loop.Message) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return out
}

func TestCollapseStagesAtTheThresholdNotBelow(t *testing.T) {
	msgs := rounds(4, 100) // p a1 r1 a2 r2 a3 r3 a4 r4
	in := loop.CollapseInput{Messages: msgs, Tokens: 999, StageAt: 1_000, CommitAt: 2_000, KeepRecent: 2}
	below := loop.SpanCollapser{}.Collapse(in)
	assert.Empty(t, below.Staged, "staged under StageAt")
	assert.Equal(t, msgIDs(msgs), msgIDs(below.Messages), "messages changed under StageAt")

	in.Tokens = 1_000
	at := loop.SpanCollapser{}.Collapse(in)
	// foldable: everything before the newest 2 (a4 r4); the older half of
	// that runs from the prompt to the end of the first round.
	assert.Equal(t, []loop.Span{{First: "p", Last: "r1"}}, at.Staged, "span staged at StageAt")
	assert.Zero(t, at.Committed, "staging commits nothing")
	assert.Empty(t, at.Removed)
	assert.Equal(t, msgIDs(msgs), msgIDs(at.Messages), "staging changes the messages")
}

func TestCollapseCommitsStagedSpansAtTheThreshold(t *testing.T) {
	msgs := rounds(4, 100)
	staged := []loop.Span{{First: "p", Last: "r1"}}
	in := loop.CollapseInput{Messages: msgs, Tokens: 1_999, Staged: staged, StageAt: 5_000, CommitAt: 2_000, KeepRecent: 2}
	below := loop.SpanCollapser{}.Collapse(in)
	assert.Equal(t, staged, below.Staged, "the staged span is kept under CommitAt")
	assert.Zero(t, below.Committed, "committed under CommitAt")
	assert.Equal(t, msgIDs(msgs), msgIDs(below.Messages))

	in.Tokens = 2_000
	at := loop.SpanCollapser{}.Collapse(in)
	assert.Equal(t, 1, at.Committed, "committed at CommitAt")
	assert.Empty(t, at.Staged, "a committed span stays staged")
	assert.Equal(t, []string{"p", "a1", "r1"}, at.Removed)
	assert.Equal(t, []string{"collapse:p..r1", "a2", "r2", "a3", "r3", "a4", "r4"}, msgIDs(at.Messages))
	fold := at.Messages[0]
	assert.Equal(t, 30, fold.Tokens, "the fold is a tenth of the 300 tokens it replaces")
	assert.Equal(t, "[collapsed 3 messages: p..r1]", fold.Text())
	assert.True(t, fold.Meta && fold.Synthetic, "the fold is a synthetic meta message")
	assert.Equal(t, loop.RoleUser, fold.Role)
	assert.Equal(t, msgIDs(rounds(4, 100)), msgIDs(msgs), "collapse modified its input")
}

func TestCollapseWithNothingStagedCommitsNothingOverTheThreshold(t *testing.T) {
	msgs := rounds(4, 100)
	in := loop.CollapseInput{Messages: msgs, Tokens: 3_000, StageAt: 5_000, CommitAt: 2_000, KeepRecent: 2}
	res := loop.SpanCollapser{}.Collapse(in)
	assert.Zero(t, res.Committed)
	assert.Empty(t, res.Staged)
	assert.Equal(t, msgIDs(msgs), msgIDs(res.Messages))
}

func TestCollapseStagesAfterTheNewestStagedSpan(t *testing.T) {
	msgs := rounds(6, 100) // p a1 r1 ... a6 r6
	staged := []loop.Span{{First: "p", Last: "r1"}}
	in := loop.CollapseInput{Messages: msgs, Tokens: 1_300, Staged: staged, StageAt: 1_000, CommitAt: 5_000, KeepRecent: 2}
	res := loop.SpanCollapser{}.Collapse(in)
	// foldable after r1: a2..r5 (the newest 2 are kept); its older half is
	// a2..r3.
	want := []loop.Span{{First: "p", Last: "r1"}, {First: "a2", Last: "r3"}}
	if diff := cmp.Diff(want, res.Staged); diff != "" {
		t.Errorf("staged (-want +got):\n%s", diff)
	}
	assert.Equal(t, staged, in.Staged, "collapse appended to the caller's staged spans")
	assert.Zero(t, res.Committed)

	// a span whose messages are gone (folded elsewhere) does not bound the next
	gone := loop.SpanCollapser{}.Collapse(loop.CollapseInput{Messages: msgs, Tokens: 1_300,
		Staged: []loop.Span{{First: "x", Last: "y"}}, StageAt: 1_000, CommitAt: 5_000, KeepRecent: 2})
	assert.Equal(t, []loop.Span{{First: "x", Last: "y"}, {First: "p", Last: "r2"}}, gone.Staged)

	// a staged span ending at the first message bounds the next one too
	first := loop.SpanCollapser{}.Collapse(loop.CollapseInput{Messages: msgs, Tokens: 1_300,
		Staged: []loop.Span{{First: "p", Last: "p"}}, StageAt: 1_000, CommitAt: 5_000, KeepRecent: 2})
	assert.Equal(t, []loop.Span{{First: "p", Last: "p"}, {First: "a1", Last: "r3"}}, first.Staged)

	// a lone message between the staged span and the next round is no span
	lone := append(rounds(1, 100), loop.Message{ID: "u", Role: loop.RoleUser, Tokens: 100, Blocks: []loop.Block{{Type: loop.BlockText, Text: "more"}}})
	lone = append(lone, rounds(2, 100)[1:]...)
	for i := range lone[4:] {
		lone[4+i].ID += "b"
	}
	lone[4].Blocks[0].ID, lone[5].Blocks[0].ToolUseID, lone[6].Blocks[0].ID, lone[7].Blocks[0].ToolUseID = "tb1", "tb1", "tb2", "tb2"
	require.Equal(t, []string{"p", "a1", "r1", "u", "a1b", "r1b", "a2b", "r2b"}, msgIDs(lone))
	res = loop.SpanCollapser{}.Collapse(loop.CollapseInput{Messages: lone, Tokens: 1_300,
		Staged: []loop.Span{{First: "p", Last: "r1"}}, StageAt: 1_000, CommitAt: 5_000, KeepRecent: 4})
	assert.Equal(t, []loop.Span{{First: "p", Last: "r1"}}, res.Staged, "staged a single message")

	// a span of one message is widened to the newest foldable round start
	odd := loop.SpanCollapser{}.Collapse(loop.CollapseInput{Messages: msgs, Tokens: 1_300,
		Staged: []loop.Span{{First: "p", Last: "a1"}}, StageAt: 1_000, CommitAt: 5_000, KeepRecent: 8})
	assert.Equal(t, []loop.Span{{First: "p", Last: "a1"}, {First: "r1", Last: "r2"}}, odd.Staged)
}

// The older half of what is foldable may be two messages that are not a
// round (the prompt and a second user message).
func TestCollapseHalfOfTwoMessages(t *testing.T) {
	msgs := rounds(2, 100)
	msgs = append(msgs[:1], append([]loop.Message{{ID: "u", Role: loop.RoleUser, Tokens: 100,
		Blocks: []loop.Block{{Type: loop.BlockText, Text: "also"}}}}, msgs[1:]...)...)
	require.Equal(t, []string{"p", "u", "a1", "r1", "a2", "r2"}, msgIDs(msgs))
	res := loop.SpanCollapser{}.Collapse(loop.CollapseInput{Messages: msgs, Tokens: 600, StageAt: 1, CommitAt: 5_000, KeepRecent: 2})
	assert.Equal(t, []loop.Span{{First: "p", Last: "u"}}, res.Staged)
}

func TestCollapseCommitsThenStagesTheNextSpan(t *testing.T) {
	msgs := rounds(6, 100)
	in := loop.CollapseInput{Messages: msgs, Tokens: 1_300, Staged: []loop.Span{{First: "p", Last: "r1"}},
		StageAt: 1_000, CommitAt: 1_200, KeepRecent: 2}
	res := loop.SpanCollapser{}.Collapse(in)
	assert.Equal(t, 1, res.Committed)
	assert.Equal(t, []string{"collapse:p..r1", "a2", "r2", "a3", "r3", "a4", "r4", "a5", "r5", "a6", "r6"}, msgIDs(res.Messages))
	// the next span is chosen in the collapsed list: from the fold, the
	// older half of what lies before the newest 2.
	assert.Equal(t, []loop.Span{{First: "collapse:p..r1", Last: "r3"}}, res.Staged)
}

func TestCollapseNeverFoldsTheNewestKeepRecent(t *testing.T) {
	for keep := 0; keep <= 9; keep++ {
		msgs := rounds(4, 100)
		res := loop.SpanCollapser{}.Collapse(loop.CollapseInput{Messages: msgs, Tokens: 900, StageAt: 1, CommitAt: 5_000, KeepRecent: keep})
		for _, s := range res.Staged {
			last := -1
			for i, m := range msgs {
				if m.ID == s.Last {
					last = i
				}
			}
			require.GreaterOrEqual(t, last, 0, "keep %d: span %v ends outside the messages", keep, s)
			assert.Less(t, last, len(msgs)-keep, "keep %d: span %v reaches into the newest %d", keep, s, keep)
		}
	}
	want := map[int]loop.Span{0: {First: "p", Last: "r1"}, 2: {First: "p", Last: "r1"}, 4: {First: "p", Last: "r1"}, 6: {First: "p", Last: "r1"}}
	for keep, span := range want {
		res := loop.SpanCollapser{}.Collapse(loop.CollapseInput{Messages: rounds(4, 100), Tokens: 900, StageAt: 1, CommitAt: 5_000, KeepRecent: keep})
		assert.Equal(t, []loop.Span{span}, res.Staged, "keep %d", keep)
	}
	for _, keep := range []int{8, 9} {
		res := loop.SpanCollapser{}.Collapse(loop.CollapseInput{Messages: rounds(4, 100), Tokens: 900, StageAt: 1, CommitAt: 5_000, KeepRecent: keep})
		assert.Empty(t, res.Staged, "keep %d leaves less than two messages foldable", keep)
	}
}

func TestCollapseNeedsTwoFoldableRounds(t *testing.T) {
	none := loop.SpanCollapser{}.Collapse(loop.CollapseInput{Messages: rounds(0, 100), Tokens: 900, StageAt: 1, CommitAt: 5_000})
	assert.Empty(t, none.Staged, "the prompt alone staged")
	one := loop.SpanCollapser{}.Collapse(loop.CollapseInput{Messages: rounds(1, 100), Tokens: 900, StageAt: 1, CommitAt: 5_000})
	assert.Empty(t, one.Staged, "the prompt and one round staged")
	two := loop.SpanCollapser{}.Collapse(loop.CollapseInput{Messages: rounds(2, 100), Tokens: 900, StageAt: 1, CommitAt: 5_000})
	assert.Equal(t, []loop.Span{{First: "p", Last: "r1"}}, two.Staged, "two rounds: the prompt and the first")
	// after a staged span, one more whole round (two messages) is a span
	after := loop.SpanCollapser{}.Collapse(loop.CollapseInput{Messages: rounds(3, 100), Tokens: 900, StageAt: 1, CommitAt: 5_000,
		Staged: []loop.Span{{First: "p", Last: "r1"}}, KeepRecent: 2})
	assert.Equal(t, []loop.Span{{First: "p", Last: "r1"}, {First: "a2", Last: "r2"}}, after.Staged)
	// and with no round between the staged span and the newest two, none
	full := loop.SpanCollapser{}.Collapse(loop.CollapseInput{Messages: rounds(2, 100), Tokens: 900, StageAt: 1, CommitAt: 5_000,
		Staged: []loop.Span{{First: "p", Last: "r1"}}, KeepRecent: 2})
	assert.Equal(t, []loop.Span{{First: "p", Last: "r1"}}, full.Staged)
}

func TestDrainFoldsEveryStagedSpan(t *testing.T) {
	msgs := rounds(6, 100)
	res := loop.SpanCollapser{}.Drain(loop.CollapseInput{Messages: msgs,
		Staged: []loop.Span{{First: "p", Last: "r1"}, {First: "a2", Last: "r3"}, {First: "r5", Last: "a5"}, {First: "gone", Last: "r6"}}})
	assert.Equal(t, 2, res.Committed, "spans committed (a reversed or missing span is skipped)")
	assert.Equal(t, []string{"p", "a1", "r1", "a2", "r2", "a3", "r3"}, res.Removed)
	assert.Equal(t, []string{"collapse:p..r1", "collapse:a2..r3", "a4", "r4", "a5", "r5", "a6", "r6"}, msgIDs(res.Messages))
	assert.Equal(t, 40, res.Messages[1].Tokens, "a tenth of 400")
	single := loop.SpanCollapser{}.Drain(loop.CollapseInput{Messages: rounds(1, 5), Staged: []loop.Span{{First: "a1", Last: "a1"}}})
	assert.Equal(t, []string{"p", "collapse:a1..a1", "r1"}, msgIDs(single.Messages))
	assert.Equal(t, 1, single.Messages[1].Tokens, "a fold is at least one token")
}

// A collapse pass that commits one staged span and stages the next one
// changes the history (the fold) though the number of staged spans stays
// the same: the stage event and the request show the fold.
func TestCollapseCommitsOneAndStagesAnother(t *testing.T) {
	tools := &fakemodel.Tools{Default: fakemodel.Tool{Tokens: 15_000}}
	res, model := run(t, fixture{policy: seedWith(t, "microcompact", "false", "snip", "false"), initial: bigHistory(29, 5_000),
		tools: tools, script: []fakemodel.Step{toolStep, textStep}})
	require.Equal(t, loop.Completed, res.Terminal)
	var st []loop.Stage
	for _, s := range events[loop.Stage](res.Trace) {
		if s.Stage == loop.StageCollapse {
			st = append(st, s)
		}
	}
	require.Len(t, st, 2, "collapse stage events")
	assert.Equal(t, 0, st[0].Changed, "the first pass stages")
	assert.Equal(t, 1, st[0].Staged)
	assert.Equal(t, 1, st[1].Changed, "the second pass commits one span")
	assert.Equal(t, 1, st[1].Staged, "and stages the next")
	assert.NotEmpty(t, st[1].Removed)
	assert.Less(t, st[1].TokensAfter, st[1].TokensBefore)
	require.Len(t, model.Requests, 2)
	assert.True(t, strings.HasPrefix(model.Requests[1].Messages[0].ID, "collapse:"), "the second request starts with the fold: %s", model.Requests[1].Messages[0].ID)
}
