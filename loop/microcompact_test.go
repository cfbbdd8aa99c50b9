package loop_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/require"
)

// fullPassMicrocompactor is the default microcompactor under another
// type: the loop then hands it the whole history every time, where it
// hands the default only what may still need clearing; and it returns a
// new list instead of clearing in place.
type fullPassMicrocompactor struct{ loop.KeepRecentMicrocompactor }

func (f fullPassMicrocompactor) Microcompact(in loop.MicrocompactInput) loop.MicrocompactResult {
	in.Owned = false
	return f.KeepRecentMicrocompactor.Microcompact(in)
}

// The default microcompactor, which the loop runs incrementally, clears
// exactly what full passes over the whole history would: the same
// requests, the same stage events, the same final history, through a
// long run where snip and collapse change the history's front too.
func TestIncrementalMicrocompactClearsWhatAFullPassWould(t *testing.T) {
	for _, c := range []struct {
		name    string
		initial []loop.Message
		reply   int
	}{
		{"from a prompt", []loop.Message{loop.UserText("read everything")}, 4_000},
		// results in the starting history, none cleared at first
		{"from four exchanges", bigHistory(4, 300), 4_000},
		// replies so large that a snip leaves a few exchanges only
		{"large replies", []loop.Message{loop.UserText("read everything")}, 40_000},
	} {
		t.Run(c.name, func(t *testing.T) { checkIncrementalMicrocompact(t, c.initial, c.reply) })
	}
}

func checkIncrementalMicrocompact(t *testing.T, initial []loop.Message, reply int) {
	var script []fakemodel.Step
	for i := range 40 {
		var uses []fakemodel.ToolUse
		for k := 0; k <= i%3; k++ {
			uses = append(uses, fakemodel.ToolUse{Name: "Read", Input: fmt.Sprintf(`{"path":"f%d_%d.go"}`, i, k)})
		}
		script = append(script, fakemodel.Step{ToolUses: uses, OutputTokens: reply})
	}
	script = append(script, textStep)
	type request struct {
		IDs    []string
		Tokens []int
	}
	type outcome struct {
		Requests []request
		Stages   []loop.Stage
		Final    []loop.Message
	}
	play := func(m loop.Microcompactor) outcome {
		tools := &fakemodel.Tools{Default: fakemodel.Tool{Tokens: 400}}
		model := &fakemodel.Model{Script: script, KeepMessages: true}
		res, err := loop.Run(t.Context(), loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet, Tools: tools, Microcompactor: m},
			append([]loop.Message(nil), initial...))
		require.NoError(t, err)
		require.Equal(t, loop.Completed, res.Terminal)
		var o outcome
		for _, req := range model.Requests {
			var r request
			for _, msg := range req.Messages {
				r.IDs = append(r.IDs, msg.ID)
				r.Tokens = append(r.Tokens, msg.Tokens)
			}
			o.Requests = append(o.Requests, r)
		}
		o.Stages = events[loop.Stage](res.Trace)
		o.Final = res.State.Messages
		return o
	}
	incremental, full := play(nil), play(fullPassMicrocompactor{})
	kinds := map[loop.StageName]bool{}
	for _, st := range full.Stages {
		kinds[st.Stage] = true
	}
	require.True(t, kinds[loop.StageMicrocompact] && kinds[loop.StageSnip], "stages %v: the run must microcompact and snip", kinds)
	if diff := cmp.Diff(full, incremental); diff != "" {
		t.Errorf("incremental microcompact against full passes (-full +incremental):\n%s", diff)
	}
}
