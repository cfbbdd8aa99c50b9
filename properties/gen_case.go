package properties

import (
	"fmt"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"pgregory.net/rapid"
)

// The model names of generated cases.
const (
	primaryName  = "primary"
	fallbackName = "fallback"
)

// CaseGen draws cases that run profile p as it is: the fault script, the
// fakes' behaviours, the starting history and the caller's settings (max
// turns, token budget, fallback model, seed) vary; the policy does not.
func CaseGen(p loop.Policy) *rapid.Generator[Case] {
	return rapid.Custom(func(t *rapid.T) Case {
		return drawCase(t, p, SwarmGen().Draw(t, "swarm"))
	})
}

// SwarmCaseGen draws cases whose policy is itself drawn from profile p by
// [PolicyGen].
func SwarmCaseGen(p loop.Policy) *rapid.Generator[Case] {
	return rapid.Custom(func(t *rapid.T) Case {
		sw := SwarmGen().Draw(t, "swarm")
		return drawCase(t, PolicyGen(p).Draw(t, "policy"), sw)
	})
}

// drawCase draws everything but the policy's profile values.
func drawCase(t *rapid.T, p loop.Policy, sw Swarm) Case {
	c := Case{Policy: p}
	if sw.MaxTurns {
		c.Policy.MaxTurns = rapid.IntRange(1, 6).Draw(t, "max turns")
	}
	c.Primary = loop.ModelInfo{Name: primaryName, ContextWindow: 200_000,
		MaxOutputTokens: rapid.SampledFrom(generatedMaxOutputs).Draw(t, "primary max output")}
	if sw.FallbackModel {
		c.Fallback = loop.ModelInfo{Name: fallbackName, ContextWindow: 200_000,
			MaxOutputTokens: rapid.SampledFrom([]int{32_000, 8_000}).Draw(t, "fallback max output")}
	}
	c.Script = scriptGen(newScriptEnv(sw, c.Policy, c.Primary)).Draw(t, "script")
	c.Tools = toolBehaviourGen(sw.ToolFaults).Draw(t, "tools")
	if sw.HookFaults {
		c.StopHooks = rapid.SliceOfN(hookOutcomeGen(), 1, 3).Draw(t, "stop hooks")
	}
	if !sw.ModelCompactor {
		c.Compactions = rapid.SliceOfN(compactOutcomeGen(sw.CompactorFaults), 1, 3).Draw(t, "compactions")
	}
	if sw.Summarizer {
		c.Summaries = rapid.SliceOfN(summaryOutcomeGen(), 1, 2).Draw(t, "summaries")
	}
	c.Initial = historyGen(sw.LongHistory).Draw(t, "initial")
	if sw.TokenBudget {
		c.TokenBudget = rapid.SampledFrom([]int{5_000, 20_000, 100_000}).Draw(t, "token budget")
	}
	c.Seed = rapid.Uint64().Draw(t, "seed")
	if sw.HookFaults {
		c.StopFailureHooks = rapid.SliceOfN(stopFailureOutcomeGen(), 0, 2).Draw(t, "stop-failure hooks")
	}
	return c
}

// stopFailureOutcomeGen draws a stop-failure hook run: it succeeds,
// fails or panics. Neither changes how the run ends.
func stopFailureOutcomeGen() *rapid.Generator[fakemodel.StopFailureOutcome] {
	return rapid.Custom(func(t *rapid.T) fakemodel.StopFailureOutcome {
		switch rapid.SampledFrom([]string{"ok", "err", "panic"}).Draw(t, "stop-failure outcome") {
		case "err":
			return fakemodel.StopFailureOutcome{Err: "failure hook exited 1"}
		case "panic":
			return fakemodel.StopFailureOutcome{Panic: "failure hook crashed"}
		}
		return fakemodel.StopFailureOutcome{}
	})
}

// toolBehaviourGen draws how the tools behave: results of some size, and
// with faults on, errors, panics, denials, preventions and aborts.
func toolBehaviourGen(faults bool) *rapid.Generator[ToolBehaviour] {
	tool := rapid.Custom(func(t *rapid.T) fakemodel.Tool {
		b := fakemodel.Tool{
			Tokens:     rapid.SampledFrom([]int{0, 2_000, 30_000}).Draw(t, "result tokens"),
			Concurrent: rapid.Bool().Draw(t, "concurrent"),
		}
		if !faults {
			return b
		}
		switch rapid.SampledFrom([]string{"ok", "is_error", "err", "panic", "deny", "prevent", "abort"}).Draw(t, "tool fault") {
		case "is_error":
			b.IsError = true
		case "err":
			b.Err = "tool failed"
		case "panic":
			b.Panic = "tool panicked"
		case "deny":
			b.Deny = "not allowed"
		case "prevent":
			b.PreventContinuation = true
		case "abort":
			b.Abort = true
		}
		return b
	})
	return rapid.Custom(func(t *rapid.T) ToolBehaviour {
		tb := ToolBehaviour{Default: tool.Draw(t, "default tool")}
		for _, name := range ToolNames() {
			if faults && rapid.Bool().Draw(t, "own behaviour "+name) {
				if tb.ByName == nil {
					tb.ByName = map[string]fakemodel.Tool{}
				}
				tb.ByName[name] = tool.Draw(t, "tool "+name)
			}
		}
		return tb
	})
}

// hookOutcomeGen draws one stop-hook verdict.
func hookOutcomeGen() *rapid.Generator[fakemodel.StopOutcome] {
	return rapid.Custom(func(t *rapid.T) fakemodel.StopOutcome {
		var o fakemodel.StopOutcome
		switch rapid.SampledFrom([]string{"pass", "block", "prevent", "err", "panic"}).Draw(t, "hook verdict") {
		case "block":
			o.Block = "tests still fail"
		case "prevent":
			o.Prevent, o.Reason = true, "hook said stop"
		case "err":
			o.Err = "hook failed"
		case "panic":
			o.Panic = "hook panicked"
		}
		o.Times = rapid.IntRange(0, 3).Draw(t, "hook times")
		return o
	})
}

// compactOutcomeGen draws one compaction of the scripted compactor.
func compactOutcomeGen(faults bool) *rapid.Generator[fakemodel.CompactOutcome] {
	return rapid.Custom(func(t *rapid.T) fakemodel.CompactOutcome {
		o := fakemodel.CompactOutcome{
			Keep:          rapid.IntRange(0, 4).Draw(t, "compact keep"),
			SummaryTokens: rapid.SampledFrom([]int{0, 2_000, 190_000}).Draw(t, "summary tokens"),
		}
		if faults {
			switch rapid.SampledFrom([]string{"ok", "err", "panic"}).Draw(t, "compactor fault") {
			case "err":
				o.Err = "compaction failed"
			case "panic":
				o.Panic = "compactor panicked"
			}
			o.Times = rapid.IntRange(0, 2).Draw(t, "compact times")
		}
		return o
	})
}

// summaryOutcomeGen draws one tool-use summary.
func summaryOutcomeGen() *rapid.Generator[fakemodel.SummaryOutcome] {
	return rapid.Custom(func(t *rapid.T) fakemodel.SummaryOutcome {
		var o fakemodel.SummaryOutcome
		switch rapid.SampledFrom([]string{"ok", "err", "panic"}).Draw(t, "summary outcome") {
		case "err":
			o.Err = "summary failed"
		case "panic":
			o.Panic = "summarizer panicked"
		}
		return o
	})
}

// historyGen draws a valid starting history: a user message, then
// exchanges (an assistant reply, text or tool use, and the user's answer
// or tool result). Long histories give snip, collapse and compaction
// something to remove.
func historyGen(long bool) *rapid.Generator[[]loop.Message] {
	lo, hi := 0, 2
	if long {
		lo, hi = 6, 20
	}
	size := rapid.SampledFrom([]int{0, 500, 8_000})
	return rapid.Custom(func(t *rapid.T) []loop.Message {
		n := rapid.IntRange(lo, hi).Draw(t, "exchanges")
		msgs := []loop.Message{{ID: "h0", Role: loop.RoleUser, Tokens: size.Draw(t, "size"),
			Blocks: []loop.Block{{Type: loop.BlockText, Text: "the task"}}}}
		for i := 1; i <= n; i++ {
			id := fmt.Sprintf("h%d", i)
			if rapid.Bool().Draw(t, "tool exchange") {
				use := "hist_" + id
				msgs = append(msgs,
					loop.Message{ID: id + "a", Role: loop.RoleAssistant, Tokens: size.Draw(t, "size"),
						Blocks: []loop.Block{{Type: loop.BlockToolUse, ID: use, Name: "Read", Input: "{}"}}},
					loop.Message{ID: id + "r", Role: loop.RoleUser, Tokens: size.Draw(t, "size"),
						Blocks: []loop.Block{{Type: loop.BlockToolResult, ToolUseID: use, Text: "file contents"}}})
				continue
			}
			msgs = append(msgs,
				loop.Message{ID: id + "a", Role: loop.RoleAssistant, Tokens: size.Draw(t, "size"),
					Blocks: []loop.Block{{Type: loop.BlockText, Text: "an answer"}}},
				loop.Message{ID: id + "u", Role: loop.RoleUser, Tokens: size.Draw(t, "size"),
					Blocks: []loop.Block{{Type: loop.BlockText, Text: "go on"}}})
		}
		return msgs
	})
}
