package properties

import (
	"fmt"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"pgregory.net/rapid"
)

// MaxScriptSteps is the longest script the generators draw.
const MaxScriptSteps = 20

// scriptEnv is what step drawing needs to know about the case.
type scriptEnv struct {
	swarm Swarm
	// levels are the input sizes a reply may report (0: the request's).
	levels []int
	// conditions are the branch conditions a conditional step may test.
	conditions []string
	// toolsForever allows a step with tool uses to repeat forever (only
	// with max turns set: otherwise the script is not finite).
	toolsForever bool
}

// newScriptEnv derives the input levels and branch conditions from the
// policy's thresholds for the primary model.
func newScriptEnv(sw Swarm, p loop.Policy, primary loop.ModelInfo) scriptEnv {
	env := scriptEnv{swarm: sw, levels: []int{0}, toolsForever: p.MaxTurns > 0}
	if sw.BigInputs {
		l := p.Limits(primary)
		levels := []int{l.WarningThreshold, l.AutoCompactThreshold, l.BlockingLimit, l.Window}
		if p.ContextCollapse {
			levels = append(levels, l.EffectiveWindow*p.CollapseStagePercent/100, l.EffectiveWindow*p.CollapseCommitPercent/100)
		}
		for _, n := range levels {
			if n >= 0 {
				env.levels = append(env.levels, n+1)
			}
		}
	}
	env.conditions = []string{
		fmt.Sprintf("max_tokens > %d", p.MaxTokens(primary)),
		"purpose == compact",
		"non_streaming == true",
		"model == " + fallbackName,
		"request > 2",
		"input_tokens >= window",
	}
	return env
}

// scriptGen draws a script of 1 to MaxScriptSteps steps. With the swarm's
// Forever switch its last step repeats forever (unless that would make a
// tool turn repeat without a max-turns cap); otherwise it may close with
// a plain answer, so that fewer runs end by running out of script.
func scriptGen(env scriptEnv) *rapid.Generator[[]fakemodel.Step] {
	return rapid.Custom(func(t *rapid.T) []fakemodel.Step {
		steps := rapid.SliceOfN(stepGen(env, true), 1, MaxScriptSteps).Draw(t, "script")
		if env.swarm.Overflow {
			steps = withOverflow(steps)
		}
		last := &steps[len(steps)-1]
		switch {
		case env.swarm.Forever:
			if env.toolsForever || !hasToolUses(*last) {
				last.Repeat = fakemodel.Forever
			}
		case len(steps) < MaxScriptSteps && rapid.Bool().Draw(t, "closing answer"):
			steps = append(steps, fakemodel.Step{Text: "done"})
		}
		return steps
	})
}

// withOverflow inserts a prompt-too-long after every step that reports a
// big input, as long as the script stays within MaxScriptSteps.
func withOverflow(steps []fakemodel.Step) []fakemodel.Step {
	out := make([]fakemodel.Step, 0, len(steps))
	for i, s := range steps {
		out = append(out, s)
		if s.InputTokens > 0 && len(out)+len(steps)-i <= MaxScriptSteps {
			out = append(out, fakemodel.Step{Kind: fakemodel.PromptTooLong})
		}
	}
	return out
}

// hasToolUses reports whether a step (or either branch) yields tool uses.
func hasToolUses(s fakemodel.Step) bool {
	if s.If != nil {
		return hasToolUses(*s.Then) || hasToolUses(*s.Else)
	}
	return len(s.ToolUses) > 0
}

// stepGen draws one script step: a plain reply, or a fault of a kind the
// swarm switched on, or (top-level only) a branch on the request.
func stepGen(env scriptEnv, top bool) *rapid.Generator[fakemodel.Step] {
	kinds := append([]fakemodel.Kind{fakemodel.Reply}, env.swarm.Kinds...)
	return rapid.Custom(func(t *rapid.T) fakemodel.Step {
		if top && env.swarm.Conditional && rapid.Bool().Draw(t, "branch") {
			cond := fakemodel.MustCondition(rapid.SampledFrom(env.conditions).Draw(t, "if"))
			then := stepGen(env, false).Draw(t, "then")
			els := stepGen(env, false).Draw(t, "else")
			return fakemodel.Step{If: cond, Then: &then, Else: &els}
		}
		s := fakemodel.Step{Kind: fakemodel.Reply}
		if rapid.Bool().Draw(t, "fault") {
			s.Kind = rapid.SampledFrom(kinds).Draw(t, "kind")
		}
		switch s.Kind {
		case fakemodel.Reply:
			s.Kind = ""
			drawReply(t, env, &s)
		case fakemodel.Truncated:
			if rapid.Bool().Draw(t, "truncated tool use") {
				s.ToolUses = toolUsesGen(1).Draw(t, "tool uses")
			} else {
				s.Text = "long answer"
			}
			s.InputTokens = rapid.SampledFrom(env.levels).Draw(t, "input tokens")
		case fakemodel.MalformedToolUse:
			s.Text = "I'll use a tool."
		case fakemodel.ServerError:
			s.Status = rapid.SampledFrom([]int{0, 503}).Draw(t, "status")
		case fakemodel.OtherStatus:
			s.Status = rapid.SampledFrom([]int{400, 404, 599}).Draw(t, "status")
		case fakemodel.RateLimited:
			s.RetryAfterMS = rapid.SampledFrom([]int{0, 2_000}).Draw(t, "retry after")
		case fakemodel.FallbackTriggered, fakemodel.StreamError, fakemodel.Abort:
			if rapid.Bool().Draw(t, "tool use before the failure") {
				s.ToolUses = toolUsesGen(1).Draw(t, "tool uses")
			}
			s.After = rapid.IntRange(0, len(s.ToolUses)+1).Draw(t, "after")
			if s.Kind == fakemodel.StreamError && s.After > 0 && rapid.Bool().Draw(t, "thinking before the cut") {
				// a cut after thinking only keeps nothing (claude-code
				// streams the request again)
				s.Thinking = "thinking"
			}
		}
		if top && env.swarm.Repeat {
			s.Repeat = rapid.IntRange(0, 3).Draw(t, "repeat")
		}
		return s
	})
}

// drawReply fills an ordinary reply: text, tool uses or both, the sizes
// it reports, and now and then a stop reason that contradicts it.
func drawReply(t *rapid.T, env scriptEnv, s *fakemodel.Step) {
	s.ToolUses = toolUsesGen(3).Draw(t, "tool uses")
	if len(s.ToolUses) == 0 || rapid.Bool().Draw(t, "text with tools") {
		s.Text = "answer"
	}
	if rapid.Bool().Draw(t, "thinking") {
		s.Thinking = "thinking"
	}
	s.Stop = rapid.SampledFrom([]loop.StopReason{"", "", "", loop.StopMaxTokens, loop.StopToolUse, loop.StopEndTurn}).Draw(t, "stop")
	s.OutputTokens = rapid.SampledFrom([]int{0, 600, 5_000}).Draw(t, "output tokens")
	s.InputTokens = rapid.SampledFrom(env.levels).Draw(t, "input tokens")
}

// toolUsesGen draws up to n tool uses (IDs left to the fake, which makes
// them unique).
func toolUsesGen(n int) *rapid.Generator[[]fakemodel.ToolUse] {
	use := rapid.Custom(func(t *rapid.T) fakemodel.ToolUse {
		return fakemodel.ToolUse{Name: rapid.SampledFrom(ToolNames()).Draw(t, "tool")}
	})
	return rapid.SliceOfN(use, 0, n)
}
