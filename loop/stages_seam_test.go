package loop_test

import (
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// snipFunc is a Snipper from a function.
type snipFunc func(loop.SnipInput) loop.SnipResult

func (f snipFunc) Snip(in loop.SnipInput) loop.SnipResult { return f(in) }

// A snip counts when it removed messages or freed tokens, either one: a
// snipper that drops one message without saying what it freed, and one
// that frees a token without dropping anything, are both applied and
// recorded.
func TestSnipCountsWhenItRemovesOrFrees(t *testing.T) {
	initial := []loop.Message{{ID: "old", Role: loop.RoleUser, Tokens: 500, Blocks: text("an old paste")},
		{ID: "new", Role: loop.RoleUser, Tokens: 20, Blocks: text("the task")}}
	for _, c := range []struct {
		name string
		snip snipFunc
		sent []string
		want loop.Stage
	}{
		{"removes one message, frees nothing it can tell", func(in loop.SnipInput) loop.SnipResult {
			return loop.SnipResult{Messages: in.Messages[1:], Removed: []string{in.Messages[0].ID}}
		}, []string{"new"}, loop.Stage{Stage: loop.StageSnip, TokensBefore: 520, TokensAfter: 20, Removed: []string{"old"}}},
		{"frees one token, removes nothing", func(in loop.SnipInput) loop.SnipResult {
			return loop.SnipResult{Messages: in.Messages, TokensFreed: 1}
		}, []string{"old", "new"}, loop.Stage{Stage: loop.StageSnip, TokensBefore: 520, TokensAfter: 520, TokensFreed: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := &fakemodel.Model{Script: []fakemodel.Step{textStep}, KeepMessages: true}
			res, err := loop.Run(t.Context(), loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet, Tools: &fakemodel.Tools{},
				Snipper: c.snip}, append([]loop.Message(nil), initial...))
			require.NoError(t, err)
			require.Equal(t, loop.Completed, res.Terminal)
			require.Len(t, model.Requests, 1)
			assert.Equal(t, c.sent, msgIDs(model.Requests[0].Messages), "the request")
			var snips []loop.Stage
			for _, s := range events[loop.Stage](res.Trace) {
				if s.Stage == loop.StageSnip {
					snips = append(snips, s)
				}
			}
			assert.Equal(t, []loop.Stage{c.want}, snips)
		})
	}
}
