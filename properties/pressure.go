package properties

import (
	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"pgregory.net/rapid"
)

// A guard is a count or a threshold of the policy a generated case can
// drive to its limit.
type guard string

// The guards PressureCaseGen drives, in the order they shrink towards.
const (
	guardStopHookBlocks   guard = "stop_hook_blocks"
	guardRecoveries       guard = "max_output_recoveries"
	guardReactiveCompacts guard = "reactive_compacts"
	guardAPIRetries       guard = "api_retries"
	guardMalformed        guard = "malformed_tool_use_retries"
	guardEmptyReplies     guard = "empty_reply_retries"
	guardInvalidResends   guard = "invalid_request_resends"
	guardMaxTurns         guard = "max_turns"
	guardAutoCompact      guard = "auto_compact_threshold"
	guardBlockingLimit    guard = "blocking_limit"
)

var guards = []guard{guardStopHookBlocks, guardRecoveries, guardReactiveCompacts, guardAPIRetries, guardMalformed,
	guardEmptyReplies, guardInvalidResends, guardMaxTurns, guardAutoCompact, guardBlockingLimit}

// unboundedPressure is how far a guard without a cap (a stop-hook block
// cap of 0) is pushed.
const unboundedPressure = 12

// userCaseGen draws the cases of [Test]: half are [CaseGen]'s, half put a
// guard under pressure ([PressureCaseGen]); scripts, when given, replace
// the drawn script of either. The policy's own max turns is kept.
func userCaseGen(p loop.Policy, scripts *rapid.Generator[[]fakemodel.Step]) *rapid.Generator[Case] {
	ordinary, pressured := CaseGen(p), PressureCaseGen(p)
	return rapid.Custom(func(t *rapid.T) Case {
		g := ordinary
		if rapid.Bool().Draw(t, "pressure a guard") {
			g = pressured
		}
		c := g.Draw(t, "case")
		if p.MaxTurns > 0 {
			c.Policy.MaxTurns = p.MaxTurns
		}
		if scripts != nil {
			c.Script = scripts.Draw(t, "user script")
		}
		return c
	})
}

// PressureCaseGen draws cases of policy p that drive one of its guards to
// its limit: a count (consecutive stop-hook blocks, truncations, reactive
// compactions, API retries, malformed or empty replies, invalid-request
// resends, turns) to one below, at, and one or two past the policy's cap;
// or a starting context one token either side of the auto-compact
// threshold or the blocking limit. The rest of the case is drawn as
// [CaseGen] draws it.
func PressureCaseGen(p loop.Policy) *rapid.Generator[Case] {
	base := CaseGen(p)
	return rapid.Custom(func(t *rapid.T) Case {
		c := base.Draw(t, "base case")
		g := rapid.SampledFrom(guards).Draw(t, "guard")
		pressure(t, &c, g)
		return c
	})
}

// around draws one of cap-1, cap, cap+1 and cap+2 (never below 0).
func around(t *rapid.T, limit int, label string) int {
	return max(limit+rapid.IntRange(-1, 2).Draw(t, label), 0)
}

// pressure rewrites c's script (and the fakes the guard needs) to push
// guard g.
func pressure(t *rapid.T, c *Case, g guard) {
	p := c.Policy
	done := fakemodel.Step{Text: "done"}
	tool := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}}
	repeat := func(s fakemodel.Step, n int) []fakemodel.Step {
		if n == 0 {
			return nil
		}
		s.Repeat = n
		return []fakemodel.Step{s}
	}
	switch g {
	case guardStopHookBlocks:
		limit := p.StopHookBlockCap
		if limit == 0 {
			limit = unboundedPressure
		}
		blocks := around(t, limit, "blocks in a row")
		c.Script = []fakemodel.Step{{Text: "done", Repeat: fakemodel.Forever}}
		c.StopHooks = []fakemodel.StopOutcome{{Block: "tests still fail", Times: blocks}, {}}
		if blocks == 0 {
			c.StopHooks = []fakemodel.StopOutcome{{}}
		}
	case guardRecoveries:
		// escalation takes one truncation before the recoveries start
		n := around(t, p.MaxOutputRecoveries+1, "truncations in a row")
		c.Script = append(repeat(fakemodel.Step{Kind: fakemodel.Truncated, Text: "long answer"}, n), done)
	case guardReactiveCompacts:
		n := around(t, p.MaxReactiveCompactsInRow, "prompt-too-long in a row")
		c.Compactions = []fakemodel.CompactOutcome{{SummaryTokens: 2_000}}
		c.Script = append(append([]fakemodel.Step{tool}, repeat(fakemodel.Step{Kind: fakemodel.PromptTooLong}, n)...), done)
	case guardAPIRetries:
		n := around(t, p.APIRetries, "overloaded in a row")
		c.Script = append(repeat(fakemodel.Step{Kind: fakemodel.Overloaded}, n), done)
	case guardMalformed:
		n := around(t, p.MalformedToolUseRetries, "malformed in a row")
		c.Script = append(repeat(fakemodel.Step{Kind: fakemodel.MalformedToolUse, Text: "I'll use a tool."}, n), done)
	case guardEmptyReplies:
		n := around(t, p.EmptyReplyRetries, "empty replies in a row")
		c.Script = append(repeat(fakemodel.Step{Kind: fakemodel.Empty}, n), done)
	case guardInvalidResends:
		n := around(t, p.InvalidRequestResends, "invalid requests in a row")
		c.Script = append(repeat(fakemodel.Step{Kind: fakemodel.InvalidRequest}, n), done)
	case guardMaxTurns:
		if c.Policy.MaxTurns == 0 {
			c.Policy.MaxTurns = rapid.IntRange(1, 4).Draw(t, "max turns")
		}
		forever := tool
		forever.Repeat = fakemodel.Forever
		c.Script = []fakemodel.Step{forever}
	case guardAutoCompact, guardBlockingLimit:
		l := p.Limits(c.Primary)
		at := l.AutoCompactThreshold
		if g == guardBlockingLimit {
			at = l.BlockingLimit
		}
		size := max(at+rapid.IntRange(-1, 1).Draw(t, "tokens from the threshold"), 1)
		c.Initial = thresholdHistory(size)
		c.Compactions = []fakemodel.CompactOutcome{{SummaryTokens: 2_000}}
		c.Script = []fakemodel.Step{done}
	}
}

// thresholdHistory is a two-exchange history whose usage-based count is
// size: the prompt carries the bulk.
func thresholdHistory(size int) []loop.Message {
	u := loop.Usage{InputTokens: max(size-200, 1), OutputTokens: 100}
	return []loop.Message{
		{ID: "h0", Role: loop.RoleUser, Tokens: max(size-200, 1), Blocks: []loop.Block{{Type: loop.BlockText, Text: "the task and a large paste"}}},
		{ID: "h1a", Role: loop.RoleAssistant, Tokens: 100, Usage: &u, Blocks: []loop.Block{{Type: loop.BlockToolUse, ID: "hist_h1", Name: "Read", Input: "{}"}}},
		{ID: "h1r", Role: loop.RoleUser, Tokens: 100, Blocks: []loop.Block{{Type: loop.BlockToolResult, ToolUseID: "hist_h1", Text: "file contents"}}},
	}
}
