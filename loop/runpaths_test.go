package loop_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A request that fails before any block leaves no reply in the history:
// the prompt, then the API-error message.
func TestFailedRequestWithoutBlocksAddsNoReply(t *testing.T) {
	res, _ := run(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.ServerError}}})
	require.Equal(t, loop.Completed, res.Terminal)
	msgs := res.State.Messages
	require.Equal(t, []string{"m1", "m2"}, msgIDs(msgs), "no id spent on a reply that never came")
	assert.Equal(t, "fix the bug", msgs[0].Text())
	assert.True(t, msgs[1].APIError, "the last message shows the error")
	for _, m := range msgs {
		assert.NotEmpty(t, m.Blocks, "message %s has no blocks", m.ID)
		assert.NotEmpty(t, m.ID)
	}
	thrown, _ := run(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.Thrown, Message: "socket closed"}}})
	require.Equal(t, loop.ModelError, thrown.Terminal)
	require.Len(t, thrown.State.Messages, 2, "history %v", msgIDs(thrown.State.Messages))
	assert.True(t, thrown.State.Messages[1].APIError)
}

// A request that fails after one block keeps that block as the partial
// reply, a whole message, before the API-error message (a fallback
// trigger without a fallback model is an ordinary API error).
func TestFailedRequestKeepsItsPartialBlock(t *testing.T) {
	res, _ := run(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.FallbackTriggered, Text: "half an answer", After: 1}}})
	require.Equal(t, loop.Completed, res.Terminal)
	msgs := res.State.Messages
	require.Len(t, msgs, 3, "history %v", msgIDs(msgs))
	partial := msgs[1]
	assert.Equal(t, loop.RoleAssistant, partial.Role)
	assert.Equal(t, "half an answer", partial.Text())
	assert.NotEmpty(t, partial.ID)
	assert.Positive(t, partial.Tokens)
	assert.True(t, msgs[2].APIError)
}

// A starting history with one id twice is refused, naming both messages.
func TestStartingHistoryWithDuplicateIDs(t *testing.T) {
	initial := []loop.Message{
		{ID: "x", Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockText, Text: "a"}}},
		{ID: "y", Role: loop.RoleAssistant, Blocks: []loop.Block{{Type: loop.BlockText, Text: "b"}}},
		{ID: "x", Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockText, Text: "c"}}},
	}
	_, err := loop.Run(context.Background(), loop.Config{Policy: loop.Seed(), Model: &fakemodel.Model{Script: []fakemodel.Step{textStep}},
		Primary: sonnet, Tools: &fakemodel.Tools{}}, initial)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `id "x" is also the id of message 0`)
	require.Error(t, loop.ValidateHistory(initial))
}

// The loop's own message IDs skip those the starting history uses, and
// go on past the first 1,024.
func TestMessageIDs(t *testing.T) {
	initial := []loop.Message{{ID: "m1", Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockText, Text: "a"}}},
		{ID: "m3", Role: loop.RoleAssistant, Blocks: []loop.Block{{Type: loop.BlockText, Text: "b"}}},
		{Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockText, Text: "c"}}}}
	res, _ := run(t, fixture{initial: initial, script: []fakemodel.Step{textStep}})
	assert.Equal(t, []string{"m1", "m3", "m2", "m4"}, msgIDs(res.State.Messages))

	// 1,022 messages, a tool round (m1023, m1024) and the answer (m1025):
	// the ids and the transition's message count cross 1,024
	long := make([]loop.Message, 0, 1_022)
	for i := 0; i < 1_022; i++ {
		role := loop.RoleUser
		if i%2 == 1 {
			role = loop.RoleAssistant
		}
		long = append(long, loop.Message{Role: role, Tokens: 10, Blocks: []loop.Block{{Type: loop.BlockText, Text: "x"}}})
	}
	long[len(long)-1].Role = loop.RoleUser
	long[len(long)-2].Role = loop.RoleAssistant
	res, _ = run(t, fixture{initial: long, script: []fakemodel.Step{toolStep, textStep}})
	got := msgIDs(res.State.Messages)
	require.Len(t, got, 1_025)
	for i, id := range got {
		require.Equal(t, "m"+strconv.Itoa(i+1), id, "message %d", i)
	}
	tr := events[loop.TransitionEvent](res.Trace)
	require.Len(t, tr, 1)
	assert.Contains(t, tr[0].Changes, loop.FieldChange{Field: "messages", From: "1022", To: "1024"})
}

// A tool_use id of the starting history cannot be reused by a reply.
func TestReplyReusingAStartingToolUseID(t *testing.T) {
	reuse := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{ID: "hist_aa", Name: "Read"}}, OutputTokens: 10}
	res, _ := run(t, fixture{initial: bigHistory(1, 100), script: []fakemodel.Step{reuse, textStep}})
	failed := events[loop.RequestFailed](res.Trace)
	require.NotEmpty(t, failed, "the reused id was accepted; terminal %s", res.Terminal)
	assert.Contains(t, failed[0].Message, `tool_use id "hist_aa" is not unique`)
	assert.Empty(t, events[loop.ToolBatch](res.Trace), "a tool ran for the rejected reply")
}

// A tool that returns a Go error gets an error result carrying it: it ran,
// it was not interrupted.
func TestToolReturningAnError(t *testing.T) {
	tools := &fakemodel.Tools{ByName: map[string]fakemodel.Tool{"Read": {Err: "permission denied"}}}
	res, _ := run(t, fixture{script: []fakemodel.Step{toolStep, textStep}, tools: tools})
	expect(t, res, outcome{Terminal: loop.Completed, Transitions: []loop.Transition{loop.NextTurn}, Turn: 2, Requests: 2})
	r := events[loop.ToolResultEvent](res.Trace)
	require.Len(t, r, 1)
	assert.True(t, r[0].IsError)
	assert.False(t, r[0].Synthetic, "an error result is the tool's, not synthetic")
	assert.Contains(t, r[0].Error, "permission denied")
	var result loop.Block
	for _, m := range res.State.Messages {
		if m.IsToolResult() {
			result = m.Blocks[0]
		}
	}
	assert.True(t, result.IsError)
	assert.Contains(t, result.Text, "permission denied")
	assert.NotContains(t, result.Text, loop.InterruptedResult)
}

// The fallback needs the policy's switch and a named fallback model.
func TestFallbackNeedsTheSwitchAndAModel(t *testing.T) {
	trigger := fakemodel.Step{Kind: fakemodel.FallbackTriggered}
	haiku := loop.ModelInfo{Name: "haiku", ContextWindow: 200_000, MaxOutputTokens: 8_000}
	on, _ := run(t, fixture{fallback: haiku, script: []fakemodel.Step{trigger, textStep}})
	assert.Len(t, events[loop.Fallback](on.Trace), 1, "switch on, model named")
	off := loop.Seed()
	off.Fallback = false
	res, model := run(t, fixture{policy: off, fallback: haiku, script: []fakemodel.Step{trigger, textStep}})
	assert.Empty(t, events[loop.Fallback](res.Trace), "fell back with the switch off")
	assert.Equal(t, "sonnet", res.State.ToolUseContext.Model)
	require.Len(t, model.Requests, 1)
	assert.Len(t, events[loop.StopFailureHook](res.Trace), 1, "an ordinary API error")
}

// The blocking limit is not enforced when the reactive path owns overflow.
func TestBlockingCheckWhenReactiveOwnsOverflow(t *testing.T) {
	limits := loop.Seed().Limits(sonnet)
	size := (limits.BlockingLimit-1_000)/2 - 100 + 10 // just over the blocking limit
	initial := func() []loop.Message { return bigHistory(2, size) }
	failing := func() *fakemodel.Compactor {
		return &fakemodel.Compactor{Outcomes: []fakemodel.CompactOutcome{{Err: "compactor down"}}}
	}
	// no budget (it would shrink the results) and no collapse (it owns
	// overflow too)
	seed, err := loop.Seed().With("tool_result_budget", "0")
	require.NoError(t, err)
	seed, err = seed.With("context_collapse", "false")
	require.NoError(t, err)
	res, model := run(t, fixture{policy: seed, initial: initial(), compactor: failing(), script: []fakemodel.Step{textStep}})
	assert.Equal(t, loop.Completed, res.Terminal, "seed: the reactive path owns overflow")
	require.Len(t, model.Requests, 1)
	require.GreaterOrEqual(t, model.Requests[0].InputTokens, limits.BlockingLimit)
	for _, kv := range [][2]string{{"reactive_owns_overflow", "false"}, {"reactive_compact", "false"}} {
		p, err := seed.With(kv[0], kv[1])
		require.NoError(t, err)
		res, model := run(t, fixture{policy: p, initial: initial(), compactor: failing(), script: []fakemodel.Step{textStep}})
		assert.Equal(t, loop.BlockingLimit, res.Terminal, "%s=%s", kv[0], kv[1])
		assert.Empty(t, model.Requests, "%s=%s: a request was sent", kv[0], kv[1])
	}
	// collapse owns overflow too; with auto-compact off the check applies
	// whoever owns it; a reactive-only model never has it
	notReactive, err := seed.With("reactive_owns_overflow", "false")
	require.NoError(t, err)
	collapse, err := notReactive.With("context_collapse", "true")
	require.NoError(t, err)
	offAuto, err := seed.With("auto_compact", "false")
	require.NoError(t, err)
	reactiveOnly, err := notReactive.With("reactive_only_models", "sonnet")
	require.NoError(t, err)
	for _, c := range []struct {
		name   string
		policy loop.Policy
		want   loop.Terminal
	}{{"collapse", collapse, loop.Completed}, {"auto_compact off", offAuto, loop.BlockingLimit}, {"reactive-only model", reactiveOnly, loop.Completed}} {
		res, _ := run(t, fixture{policy: c.policy, initial: initial(), compactor: failing(), script: []fakemodel.Step{textStep}})
		assert.Equal(t, c.want, res.Terminal, c.name)
	}
}

// The tool-result budget truncates a result that arrives on a later
// iteration, not only those of the starting history.
func TestToolResultBudgetOnLaterIterations(t *testing.T) {
	tools := &fakemodel.Tools{Default: fakemodel.Tool{Tokens: 80_000}}
	res, model := run(t, fixture{tools: tools, script: []fakemodel.Step{toolStep, toolStep, textStep}})
	require.Equal(t, loop.Completed, res.Terminal)
	var budget []int
	iter := 0
	for _, e := range res.Trace {
		switch x := e.(type) {
		case loop.IterationStart:
			iter = x.Iteration
		case loop.Stage:
			if x.Stage == loop.StageToolResultBudget {
				budget = append(budget, iter)
			}
		}
	}
	assert.Equal(t, []int{2, 3}, budget, "iterations whose stage truncated a result")

	// the first pass budgets the whole starting history, not only its
	// newest message
	start, _ := run(t, fixture{initial: append(bigHistory(2, 80_000), loop.UserText("go on")), script: []fakemodel.Step{textStep}})
	st := events[loop.Stage](start.Trace)
	require.NotEmpty(t, st)
	assert.Equal(t, loop.StageToolResultBudget, st[0].Stage)
	assert.Equal(t, 2, st[0].Changed, "results truncated in the starting history")
	require.Len(t, model.Requests, 3)
	for i, req := range model.Requests[1:] {
		for _, m := range req.Messages {
			for _, b := range m.Blocks {
				if b.Type == loop.BlockToolResult {
					assert.LessOrEqual(t, b.Tokens, loop.Seed().ToolResultBudget, "request %d: result %s", i+2, b.ToolUseID)
				}
			}
		}
	}
}

// orderTools runs Read calls concurrently (each takes a moment) and Bash
// alone, recording how many Read calls had finished when each Bash call
// started.
type orderTools struct {
	// arrived counts the Read calls started; each waits (up to 10 s) for
	// the group's other Read, which only a concurrent group lets it meet
	arrived   sync.WaitGroup
	mu        sync.Mutex
	reads     int
	bashSaw   []int
	callCount map[string]int
}

func (o *orderTools) ConcurrencySafe(c loop.ToolCall) bool { return c.Name == "Read" }

func (o *orderTools) Run(ctx context.Context, c loop.ToolCall) (loop.ToolOutcome, error) {
	if c.Name == "Read" && c.Index < 2 {
		o.arrived.Done()
		met := make(chan struct{})
		go func() { o.arrived.Wait(); close(met) }()
		select {
		case <-met:
		case <-time.After(10 * time.Second):
			return loop.ToolOutcome{}, fmt.Errorf("%s ran alone: the other call of its group never started", c.ID)
		}
		time.Sleep(20 * time.Millisecond)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.callCount[c.ID]++
	if c.Name == "Read" {
		o.reads++
	} else {
		o.bashSaw = append(o.bashSaw, o.reads)
	}
	return loop.ToolOutcome{Content: fmt.Sprintf("%s ok", c.Name), Tokens: 10}, nil
}

// A concurrency-safe group runs its calls together, to their end before
// the next call, which runs once.
func TestToolAfterAConcurrentGroup(t *testing.T) {
	step := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}, {Name: "Read"}, {Name: "Bash"}, {Name: "Read"}}, OutputTokens: 10}
	tools := &orderTools{callCount: map[string]int{}}
	tools.arrived.Add(2)
	model := &fakemodel.Model{Script: []fakemodel.Step{step, textStep}}
	res, err := loop.Run(context.Background(), loop.Config{Policy: loop.Seed(), Model: model, Primary: sonnet, Tools: tools},
		[]loop.Message{loop.UserText("go")})
	require.NoError(t, err)
	require.Equal(t, loop.Completed, res.Terminal)
	assert.Equal(t, []int{2}, tools.bashSaw, "Read calls finished when Bash started")
	require.Len(t, tools.callCount, 4)
	for id, n := range tools.callCount {
		assert.Equal(t, 1, n, "calls of %s", id)
	}
	results := events[loop.ToolResultEvent](res.Trace)
	require.Len(t, results, 4)
	for _, r := range results {
		assert.False(t, r.Synthetic || r.IsError, "result %+v", r)
	}
}
