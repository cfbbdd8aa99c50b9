package properties

import (
	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// Environment is a case without a script: the fakes and settings every
// script of an exhaustive exploration runs against.
type Environment struct {
	// Name names the environment ("plain", "hostile").
	Name string
	// Case is the environment; its Script is ignored.
	Case Case
}

// Environments are the settings a profile is explored in: a plain one (a
// short history, a compactor that succeeds), and a hostile one (a long
// history already at the compaction threshold, a stop hook that blocks
// once, a compactor that fails once, a fallback model, two max turns, a
// token budget).
func Environments(p loop.Policy) []Environment {
	primary := loop.ModelInfo{Name: primaryName, ContextWindow: 200_000, MaxOutputTokens: 64_000}
	plain := Case{Policy: p, Primary: primary, Initial: historyOf(2), Compactions: []fakemodel.CompactOutcome{{}}}
	hostile := Case{Policy: p, Primary: primary, Initial: bigHistory(12, 6_800),
		Fallback:    loop.ModelInfo{Name: fallbackName, ContextWindow: 200_000, MaxOutputTokens: 8_000},
		StopHooks:   []fakemodel.StopOutcome{{Block: "tests fail", Times: 1}, {}},
		Compactions: []fakemodel.CompactOutcome{{Err: "compaction failed", Times: 1}, {Keep: 2}},
		TokenBudget: 20_000}
	hostile.Policy.MaxTurns = 2
	return []Environment{{"plain", plain}, {"hostile", hostile}}
}

// bigHistory is historyOf(n) with every message of the given size.
func bigHistory(n, tokens int) []loop.Message {
	msgs := historyOf(n)
	for i := range msgs {
		msgs[i].Tokens = tokens
	}
	return msgs
}

// historyOf is a starting history of n text exchanges after the first
// user message.
func historyOf(n int) []loop.Message {
	msgs := []loop.Message{{ID: "h0", Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockText, Text: "the task"}}}}
	for i := 1; i <= n; i++ {
		id := "h" + itoa(i)
		msgs = append(msgs,
			loop.Message{ID: id + "a", Role: loop.RoleAssistant, Blocks: []loop.Block{{Type: loop.BlockText, Text: "an answer"}}},
			loop.Message{ID: id + "u", Role: loop.RoleUser, Blocks: []loop.Block{{Type: loop.BlockText, Text: "go on"}}})
	}
	return msgs
}
