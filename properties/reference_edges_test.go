package properties

import (
	"slices"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
)

// TestDecideAtTheCapsEdges checks the reference's caps at their edges:
// a cap of one, a count one short of and one at a cap, a delta equal to
// the diminishing threshold (which is not under it).
func TestDecideAtTheCapsEdges(t *testing.T) {
	env := RefEnv{Headroom: true, Compactable: true, Exchanges: 5}
	block := Happened{Reply: ReplyText, Output: 10, Hook: HookBlocks}
	tool := Happened{Reply: ReplyToolUse, Tools: ToolsOK}
	capOne := loop.Seed()
	capOne.StopHookBlockCap = 1
	counted := loop.ClaudeCode()
	counted.MaxTurns = 3
	countedOne := counted
	countedOne.MaxTurns = 1
	turnsOne := loop.ClaudeCode()
	turnsOne.MaxTurns = 1
	budget := loop.Seed()
	out := func(n int) Happened { return Happened{Reply: ReplyText, Output: n, Hook: HookPasses} }
	tests := []decideCase{
		{"a block cap of one allows one block", capOne, env, repeatHappened(block, 2), []string{"stop_hook_blocking", "terminal completed"}},
		{"blocks counted as turns end at max turns 3", counted, env, repeatHappened(block, 4),
			[]string{"stop_hook_blocking", "stop_hook_blocking", "terminal max_turns"}},
		{"a counted block at max turns 1 ends", countedOne, env, []Happened{block}, []string{"terminal max_turns"}},
		{"a tool turn at max turns 1 ends", turnsOne, env, []Happened{tool}, []string{"terminal max_turns"}},
		{"a budget of one token continues while nothing was output", budget, RefEnv{TokenBudget: 1}, []Happened{out(0), out(1)},
			[]string{"token_budget_continuation", "terminal completed"}},
		{"a delta at the threshold is not diminishing, nor is the one before it", budget, RefEnv{TokenBudget: 4_000},
			[]Happened{out(100), out(100), out(100), out(500), out(100), out(100)},
			append(slices.Repeat([]string{"token_budget_continuation"}, 5), "terminal completed")},
	}
	checkDecisions(t, tests)
}

// TestCapsEdgesAgree drives the loop through the edges above and
// requires the reference's decisions.
func TestCapsEdgesAgree(t *testing.T) {
	counted := loop.ClaudeCode()
	counted.MaxTurns = 3
	agreeOnScript(t, counted, refEnvFor(counted), repeatHappened(Happened{Reply: ReplyText, Output: 10, Hook: HookBlocks}, 4)...)
	capOne := loop.ClaudeCode()
	capOne.StopHookBlockCap = 1
	agreeOnScript(t, capOne, refEnvFor(capOne), repeatHappened(Happened{Reply: ReplyText, Output: 10, Hook: HookBlocks}, 3)...)
	budget := loop.Seed()
	env := refEnvFor(budget)
	env.TokenBudget = 4_000
	out := func(n int) Happened { return Happened{Reply: ReplyText, Output: n, Hook: HookPasses} }
	agreeOnScript(t, budget, env, out(100), out(100), out(100), out(500), out(100), out(100))
}

// TestPreRequestAtTheGuardsEdges: the exchanges minimum is met at its
// value; a thrash-guard window of one reply counts a refill one reply
// after the compaction, and a window of zero is off.
func TestPreRequestAtTheGuardsEdges(t *testing.T) {
	cc := loop.ClaudeCode()
	lim := cc.Limits(model200k)
	at := func(count, replies int) RefState {
		s := NewRefState()
		s.Context = count
		s.Auto = RefAutoCompact{Compacted: true, RepliesSince: replies}
		return s
	}
	exact := RefEnv{Limits: lim, Exchanges: cc.MinExchangesToCompact}
	attempt, _, _ := PreRequest(cc, exact, at(lim.AutoCompactThreshold, 5), true)
	assert.Equal(t, CompactOK, attempt, "at exactly min_exchanges_to_compact exchanges")
	env := RefEnv{Limits: lim, Exchanges: 5}
	tripOne := cc
	tripOne.RapidRefillTrip, tripOne.RapidRefillWindow = 1, 1
	attempt, end, _ := PreRequest(tripOne, env, at(lim.AutoCompactThreshold, 1), true)
	assert.Equal(t, SkippedRapidRefill, attempt, "a refill one reply after, window 1")
	assert.Equal(t, loop.RapidRefillBreaker, end, "trip 1")
	off := tripOne
	off.RapidRefillWindow = 0
	attempt, end, _ = PreRequest(off, env, at(lim.AutoCompactThreshold, 0), true)
	assert.Equal(t, CompactOK, attempt, "window 0 switches the guard off")
	assert.Empty(t, end, "window 0")
}

// TestRefusedRequestsAreNotReplies: an overflow the loop continues
// after (a collapse drain) leaves the count of replies since the last
// compaction as it was.
func TestRefusedRequestsAreNotReplies(t *testing.T) {
	p := loop.Seed()
	s := NewRefState()
	s.Auto = RefAutoCompact{Compacted: true, RepliesSince: 1}
	d, n := Decide(p, RefEnv{Compactable: true, Exchanges: 5}, s, Happened{Reply: ReplyPromptTooLong, DrainCommits: true})
	assert.Equal(t, loop.CollapseDrainRetry, d.Transition, "decision")
	assert.Equal(t, 1, n.Auto.RepliesSince, "replies since the compaction")
}
