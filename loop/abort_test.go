package loop_test

import (
	"context"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// groupAbortTools runs Read and Grep concurrently: Read finishes, and only
// then does Grep abort the run, so the group ends with one call finished
// and one interrupted whatever the scheduler does.
type groupAbortTools struct {
	cancel   context.CancelFunc
	readDone chan struct{}
}

func (g *groupAbortTools) ConcurrencySafe(loop.ToolCall) bool { return true }

func (g *groupAbortTools) Run(ctx context.Context, c loop.ToolCall) (loop.ToolOutcome, error) {
	if c.Name == "Read" {
		defer close(g.readDone)
		return loop.ToolOutcome{Content: "file contents", Tokens: 40}, nil
	}
	select {
	case <-g.readDone:
	case <-ctx.Done():
	}
	g.cancel()
	return loop.ToolOutcome{}, ctx.Err()
}

// An abort during a concurrent group interrupts the whole group: a call
// of the group that happened to finish first gets the interrupted result
// too, so the history and the trace do not depend on scheduling.
func TestAbortDuringAConcurrentGroupInterruptsTheGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tools := &groupAbortTools{cancel: cancel, readDone: make(chan struct{})}
	step := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}, {Name: "Grep"}}, OutputTokens: 10}
	model := &fakemodel.Model{Script: []fakemodel.Step{step, textStep}}
	res, err := loop.Run(ctx, loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet, Tools: tools},
		[]loop.Message{loop.UserText("go")})
	require.NoError(t, err)
	require.Equal(t, loop.AbortedTools, res.Terminal)
	assert.Contains(t, events[loop.Notice](res.Trace), loop.Notice{Text: loop.InterruptedNotice}, "the user is told the run was interrupted")

	results := events[loop.ToolResultEvent](res.Trace)
	require.Len(t, results, 2)
	for _, r := range results {
		assert.True(t, r.Synthetic && r.IsError, "result %+v", r)
	}
	msgs := res.State.Messages
	last := msgs[len(msgs)-1]
	require.Len(t, last.Blocks, 2, "the tool results")
	for _, b := range last.Blocks {
		assert.Equal(t, loop.InterruptedResult, b.Text, "result of %s", b.ToolUseID)
		assert.True(t, b.IsError)
	}
}

// panickySafeTools panics when asked whether a call is concurrency-safe;
// Read answers, Grep aborts the run.
type panickySafeTools struct {
	cancel context.CancelFunc
}

func (p *panickySafeTools) ConcurrencySafe(loop.ToolCall) bool { panic("no idea") }

func (p *panickySafeTools) Run(ctx context.Context, c loop.ToolCall) (loop.ToolOutcome, error) {
	if c.Name == "Read" {
		return loop.ToolOutcome{Content: "file contents", Tokens: 40}, nil
	}
	p.cancel()
	return loop.ToolOutcome{}, ctx.Err()
}

// A concurrency check that panics counts as "not safe": the calls run one
// by one, so an abort in the second leaves the first one's result.
func TestPanickingConcurrencyCheckRunsCallsOneByOne(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	step := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}, {Name: "Grep"}}, OutputTokens: 10}
	model := &fakemodel.Model{Script: []fakemodel.Step{step, textStep}}
	res, err := loop.Run(ctx, loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet, Tools: &panickySafeTools{cancel: cancel}},
		[]loop.Message{loop.UserText("go")})
	require.NoError(t, err)
	require.Equal(t, loop.AbortedTools, res.Terminal)
	msgs := res.State.Messages
	last := msgs[len(msgs)-1]
	require.Len(t, last.Blocks, 2, "the tool results")
	assert.Equal(t, "file contents", last.Blocks[0].Text, "the first call ran to its end")
	assert.False(t, last.Blocks[0].IsError)
	assert.Equal(t, loop.InterruptedResult, last.Blocks[1].Text)
}

// An abort while streaming keeps what arrived: nothing (the history is
// left as it was), a partial reply, or a partial reply whose tool_uses get
// interrupted results.
func TestAbortWhileStreamingKeepsWhatArrived(t *testing.T) {
	step := fakemodel.Step{Kind: fakemodel.Abort, Text: "let me look", ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"path":"a.go"}`}}}
	for _, c := range []struct {
		after int
		want  []string // the kinds of the messages after the prompt
	}{
		{0, nil},
		{1, []string{"assistant"}},
		{2, []string{"assistant", "user:tool_result"}},
	} {
		s := step
		s.After = c.after
		res, _ := run(t, fixture{script: []fakemodel.Step{s}})
		require.Equal(t, loop.AbortedStreaming, res.Terminal, "after %d blocks", c.after)
		msgs := res.State.Messages
		require.NotEmpty(t, msgs)
		assert.Equal(t, "fix the bug", msgs[0].Text())
		var kinds []string
		for _, m := range msgs[1:] {
			kinds = append(kinds, m.Kind())
		}
		assert.Equal(t, c.want, kinds, "after %d blocks", c.after)
		if c.after > 0 {
			assert.Len(t, msgs[1].Blocks, c.after, "the partial reply's blocks")
		}
		if c.after == 2 {
			require.Len(t, msgs[2].Blocks, 1)
			assert.Equal(t, loop.InterruptedResult, msgs[2].Blocks[0].Text)
		}
	}
}
