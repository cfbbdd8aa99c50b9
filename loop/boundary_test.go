package loop_test

import (
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compactedHistory is a session resumed after a compaction: older
// messages (none when old is false), the compact boundary, the summary
// and a new prompt.
func compactedHistory(old bool) []loop.Message {
	var msgs []loop.Message
	if old {
		msgs = append(msgs, loop.Message{ID: "p", Role: loop.RoleUser, Tokens: 5_000, Blocks: text("the old task")},
			loop.Message{ID: "a", Role: loop.RoleAssistant, Tokens: 300, Blocks: text("on it")})
	}
	return append(msgs,
		loop.Message{ID: "b", Role: loop.RoleUser, CompactBoundary: true, Meta: true, Synthetic: true, Tokens: 10, Blocks: text("[auto compact boundary]")},
		loop.Message{ID: "s", Role: loop.RoleUser, CompactSummary: true, Meta: true, Tokens: 800, Blocks: text("<summary>the work so far</summary>")},
		loop.Message{ID: "u", Role: loop.RoleUser, Tokens: 20, Blocks: text("go on")})
}

// A starting history holding a compact boundary, wherever it is, is sent
// from the message after it; the boundary and what precedes it leave the
// history, and the stage event says so.
func TestStartingHistoryWithACompactBoundary(t *testing.T) {
	for _, c := range []struct {
		name    string
		old     bool
		removed []string
	}{
		{"boundary first", false, []string{"b"}},
		{"boundary after older messages", true, []string{"p", "a", "b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, model := run(t, fixture{initial: compactedHistory(c.old), script: []fakemodel.Step{textStep}})
			require.Equal(t, loop.Completed, res.Terminal)
			require.Len(t, model.Requests, 1)
			assert.Equal(t, []string{"s", "u"}, msgIDs(model.Requests[0].Messages), "the request")
			st := events[loop.Stage](res.Trace)
			require.NotEmpty(t, st)
			assert.Equal(t, loop.StageBoundary, st[0].Stage)
			assert.Equal(t, c.removed, st[0].Removed)
			assert.Equal(t, 820, st[0].TokensAfter)
			assert.Equal(t, "s", res.State.Messages[0].ID, "the history starts after the boundary")
		})
	}
}

// A compaction's size after is the summary and what it kept, without the
// boundary it adds.
func TestCompactionSizeAfterIsTheSummaryAndTheTail(t *testing.T) {
	compactor := &fakemodel.Compactor{Outcomes: []fakemodel.CompactOutcome{{SummaryTokens: 800, Keep: 2}}}
	res, _ := run(t, fixture{initial: bigHistory(3, 1_000), compactor: compactor, script: []fakemodel.Step{ptl, textStep}})
	require.Equal(t, loop.Completed, res.Terminal)
	c := events[loop.Compaction](res.Trace)
	require.Len(t, c, 1)
	require.True(t, c[0].OK)
	require.Equal(t, 2, c[0].Kept)
	tail := bigHistory(3, 1_000)[5:]
	assert.Equal(t, 800+loop.SumTokens(tail), c[0].TokensAfter)
}
