package properties

import "github.com/loopsim/loopsim/loop"

// This file is the reference model: the decision table of docs/spec.md §2.5,
// §2.6 and §3 (with docs/profile-claude-code.md's extra transitions and
// terminals) restated as one pure function, written from the documents
// and not from package loop's code. It uses loop's names for policies,
// transitions and terminals, nothing else.

// RefState is what the reference carries from one iteration to the next:
// the counters of docs/spec.md §1 and of the policy's guards.
type RefState struct {
	Turn int `json:"turn"`
	// Recoveries is maxOutputTokensRecoveryCount.
	Recoveries int `json:"recoveries"`
	// ReactiveCompacts counts reactive compactions since the last reset
	// (hasAttemptedReactiveCompact is ReactiveCompacts > 0).
	ReactiveCompacts int  `json:"reactive_compacts"`
	OverrideSet      bool `json:"override_set"`
	StopHookActive   bool `json:"stop_hook_active"`
	// BlocksInRow counts stop-hook blocks since the last tool turn.
	BlocksInRow int `json:"blocks_in_row"`
	// Escalated records an escalation since the last tool turn.
	Escalated bool `json:"escalated"`
	// Malformed and Empty count the released agent's retries this turn.
	Malformed int `json:"malformed"`
	Empty     int `json:"empty"`
	// Context is the context size the last reply kept in the history
	// reported (input + cache + output); 0 stands for a count far under
	// every threshold.
	Context int `json:"context,omitempty"`
	// Auto is the auto-compact tracking.
	Auto RefAutoCompact `json:"auto"`
	// FellBack: the run has switched to the fallback model (at most once).
	FellBack bool `json:"fell_back,omitempty"`
	// Last is the previous transition.
	Last loop.Transition `json:"last,omitempty"`
	// Output sums the output tokens of every main reply received.
	Output int `json:"output"`
	// Budget tracks the token-budget continuations.
	BudgetContinuations int `json:"budget_continuations"`
	BudgetLastDelta     int `json:"budget_last_delta"`
	BudgetLastTotal     int `json:"budget_last_total"`
}

// NewRefState is the state a run starts in.
func NewRefState() RefState { return RefState{Turn: 1} }

// Reply is what the main request of an iteration came back with.
type Reply string

// The replies the reference tells apart.
const (
	ReplyText             Reply = "text"
	ReplyToolUse          Reply = "tool_use"
	ReplyTruncated        Reply = "truncated"
	ReplyTruncatedToolUse Reply = "truncated_tool_use"
	ReplyEmpty            Reply = "empty"
	ReplyMalformed        Reply = "malformed_tool_use"
	ReplyPromptTooLong    Reply = "prompt_too_long"
	ReplyMedia            Reply = "media_too_large"
	ReplyRequestTooLarge  Reply = "request_too_large"
	ReplyImage            Reply = "image_size"
	// ReplyAPIError is a failure every retry also meets.
	ReplyAPIError Reply = "api_error"
	// ReplyAborted is the user aborting while the model streams.
	ReplyAborted Reply = "aborted"
	// ReplyStreamCut is an error event after a text block, on every
	// attempt.
	ReplyStreamCut Reply = "stream_cut"
	// ReplyStreamCutToolUse is an error event after a complete tool_use
	// block, on every attempt.
	ReplyStreamCutToolUse Reply = "stream_cut_tool_use"
	// ReplyStreamCutThinking is an error event after a thinking block
	// only, on every attempt.
	ReplyStreamCutThinking Reply = "stream_cut_thinking"
)

// Replies lists every Reply in a fixed order.
var Replies = []Reply{
	ReplyText, ReplyToolUse, ReplyTruncated, ReplyTruncatedToolUse, ReplyEmpty, ReplyMalformed,
	ReplyPromptTooLong, ReplyMedia, ReplyRequestTooLarge, ReplyImage, ReplyAPIError, ReplyAborted,
	ReplyStreamCut, ReplyStreamCutToolUse, ReplyStreamCutThinking,
}

// Hook is the stop hooks' verdict, when they run.
type Hook string

// Stop-hook verdicts.
const (
	HookPasses   Hook = "pass"
	HookBlocks   Hook = "block"
	HookPrevents Hook = "prevent"
	HookFails    Hook = "fail"
)

// ToolsEnd is how a tool batch ended.
type ToolsEnd string

// Tool batch endings.
const (
	ToolsOK       ToolsEnd = "ok"
	ToolsAborted  ToolsEnd = "aborted"
	ToolsPrevents ToolsEnd = "prevent"
)

// Happened is everything an iteration met that the decision depends on.
// Fields that a path does not consult are ignored.
type Happened struct {
	// Failures are what the main request's attempts meet, in order,
	// before the reply (see RetryLayer).
	Failures []loop.ErrorKind `json:"failures,omitempty"`
	Reply    Reply            `json:"reply"`
	// Context is the context size the reply's usage reports; 0 stands
	// for a count far under every threshold.
	Context int `json:"context,omitempty"`
	// Output is the reply's output tokens.
	Output int `json:"output,omitempty"`
	// DrainCommits: draining staged collapses commits something.
	DrainCommits bool `json:"drain_commits,omitempty"`
	// CompactOK: a compaction (auto or reactive) succeeds.
	CompactOK bool `json:"compact_ok,omitempty"`
	// Hook is the stop hooks' verdict ("" when no hooks are configured).
	Hook Hook `json:"hook,omitempty"`
	// Tools is how the tool batch ended.
	Tools ToolsEnd `json:"tools,omitempty"`
}

// RefEnv is what the decision depends on besides the policy, the state
// and the iteration.
type RefEnv struct {
	// Headroom: the escalated cap is above the ordinary request's cap.
	Headroom bool
	// TokenBudget is the run's budget; zero means none.
	TokenBudget int
	// Compactable: the conversation has something a compaction can
	// summarise; whether it has the exchanges a rule needs is read from
	// Exchanges.
	Compactable bool
	// FallbackModel: the run has a fallback model configured.
	FallbackModel bool
	// Limits are the primary model's thresholds (the fallback model has
	// the same window); the zero Limits enforce nothing.
	Limits loop.Limits
	// ReactiveOnly: the primary model runs in reactive-only mode.
	ReactiveOnly bool
	// Exchanges is how many exchanges the conversation has (at least).
	Exchanges int
}

// Decision is the loop's decision after one iteration: a transition (the
// loop continues) or a terminal.
type Decision struct {
	Transition loop.Transition `json:"transition,omitempty"`
	Terminal   loop.Terminal   `json:"terminal,omitempty"`
}

// String is the transition or terminal.
func (d Decision) String() string {
	if d.Terminal != "" {
		return "terminal " + string(d.Terminal)
	}
	return string(d.Transition)
}

// Decide is the reference decision table: what the loop does after an
// iteration that met h, in state s, under policy p. It returns the
// decision and the state after it (s itself after a terminal, but for the
// output count).
func Decide(p loop.Policy, env RefEnv, s RefState, h Happened) (Decision, RefState) {
	if env.Limits != (loop.Limits{}) {
		_, end, n := PreRequest(p, env, s, h.CompactOK)
		if end != "" {
			return Decision{Terminal: end}, n
		}
		s = n
	}
	d, n := decideAfterRequest(p, env, s, h)
	if d.Terminal == "" {
		if replied(h.Reply) {
			n.Auto.RepliesSince++
		}
		if keepsReply(d.Transition) && cutOf(h.Reply) == "" {
			// a cut reply has no usage: the count stays anchored on
			// the reply before it
			n.Context = h.Context
		}
	}
	return d, n
}

// decideAfterRequest is the decision once the request is sent: the retry
// layer, then what the reply leads to.
func decideAfterRequest(p loop.Policy, env RefEnv, s RefState, h Happened) (Decision, RefState) {
	end := func(t loop.Terminal) (Decision, RefState) { return Decision{Terminal: t}, s }
	retry := RetryLayer(p, env.FallbackModel, s.FellBack, h.Attempts(p))
	s.FellBack = retry.FellBack
	if retry.Cut {
		// docs/profile-claude-code.md §7 as observed: the finished blocks
		// are kept and the request streamed again, counted with the
		// truncation recoveries; codex (docs/profile-codex.md) keeps the
		// cut reply as if it had finished, its tool calls run, and counts
		// the continuations against the stream retries
		if s.Recoveries >= streamCutBudget(p) {
			return end(p.APIErrorTerminal)
		}
		if p.StreamCutKeepsReply && h.Reply == ReplyStreamCutToolUse {
			return toolTurn(p, s, h.Tools)
		}
		return next(s, loop.StreamErrorRecovery)
	}
	if retry.Failed != "" && !h.IsReplyFailure(retry.Failed) {
		// docs/profile-claude-code.md §7: an exhausted or unretried API failure
		return end(p.APIErrorTerminal)
	}
	switch h.Reply {
	case ReplyAborted:
		return end(loop.AbortedStreaming)
	case ReplyImage:
		return end(loop.ImageError)
	case ReplyAPIError:
		return end(p.APIErrorTerminal)
	case ReplyPromptTooLong, ReplyMedia, ReplyRequestTooLarge:
		return overflow(p, env, s, h)
	}
	s.Output += h.Output
	switch h.Reply {
	case ReplyToolUse:
		return toolTurn(p, s, h.Tools)
	case ReplyTruncatedToolUse:
		// the cut input does not parse: the tool never runs, its result
		// is an input error (docs/profile-claude-code.md §1)
		return toolTurn(p, s, ToolsOK)
	case ReplyMalformed:
		if p.MalformedToolUseRetries > 0 {
			if s.Malformed >= p.MalformedToolUseRetries {
				return end(loop.MalformedToolUseExhausted)
			}
			return next(s, loop.MalformedToolUseRetry)
		}
	case ReplyEmpty:
		if s.Empty < p.EmptyReplyRetries {
			return next(s, loop.EmptyReplyRetry)
		}
	case ReplyTruncated:
		headroom := env.Headroom && !(p.EscalateOncePerStretch && s.Escalated)
		switch {
		case p.Escalation && !s.OverrideSet && headroom:
			return next(s, loop.MaxOutputTokensEscalate)
		case s.Recoveries < p.MaxOutputRecoveries:
			return next(s, loop.MaxOutputTokensRecovery)
		}
		return end(p.TruncationExhaustedTerminal)
	}
	return stopHooksThenBudget(p, env, s, h)
}

// overflow is docs/spec.md §2.5.1-2: a withheld prompt-too-long or media error.
func overflow(p loop.Policy, env RefEnv, s RefState, h Happened) (Decision, RefState) {
	media := h.Reply == ReplyMedia || (h.Reply == ReplyRequestTooLarge && p.RequestTooLargeIsMedia)
	if !media && p.ContextCollapse && s.Last != loop.CollapseDrainRetry && h.DrainCommits {
		return next(s, loop.CollapseDrainRetry)
	}
	// a 413 compacts as an auto-compaction would when the policy says
	// (observed of claude-code), any other overflow by the reactive rule
	minExchanges := p.MinExchangesToReactiveCompact
	if h.Reply == ReplyRequestTooLarge && p.RequestTooLargeAsAuto {
		minExchanges = p.MinExchangesToCompact
	}
	if p.ReactiveCompact && (p.AutoCompact || p.ReactiveCompactWhenAutoOff) && s.ReactiveCompacts < p.MaxReactiveCompactsInRow &&
		env.Compactable && env.Exchanges >= minExchanges && h.CompactOK {
		return next(s, loop.ReactiveCompactRetry)
	}
	if media {
		return Decision{Terminal: loop.ImageError}, s
	}
	return Decision{Terminal: loop.PromptTooLong}, s
}

// stopHooksThenBudget is docs/spec.md §2.5.6-8.
func stopHooksThenBudget(p loop.Policy, env RefEnv, s RefState, h Happened) (Decision, RefState) {
	switch h.Hook {
	case HookPrevents:
		return Decision{Terminal: loop.StopHookPrevented}, s
	case HookBlocks:
		if p.StopHookBlockCap > 0 && s.BlocksInRow >= p.StopHookBlockCap {
			return Decision{Terminal: p.StopHookCapAction}, s
		}
		if p.StopHookBlocksCountAsTurns && p.MaxTurns > 0 && s.Turn+1 > p.MaxTurns {
			return Decision{Terminal: loop.MaxTurns}, s
		}
		return next(s, loop.StopHookBlocking, func(n *RefState) {
			if p.StopHookBlocksCountAsTurns {
				n.Turn++
			}
		})
	}
	if p.TokenBudget && env.TokenBudget > 0 {
		delta := s.Output - s.BudgetLastTotal
		diminishing := s.BudgetContinuations >= p.BudgetDiminishingAfter &&
			delta < p.BudgetDiminishingDelta && s.BudgetLastDelta < p.BudgetDiminishingDelta
		if !diminishing && float64(s.Output) < p.BudgetCompletionRatio*float64(env.TokenBudget) {
			return next(s, loop.TokenBudgetContinuation, func(n *RefState) {
				n.BudgetContinuations++
				n.BudgetLastDelta, n.BudgetLastTotal = delta, s.Output
			})
		}
	}
	return Decision{Terminal: loop.Completed}, s
}

// toolTurn is docs/spec.md §2.6.
func toolTurn(p loop.Policy, s RefState, tools ToolsEnd) (Decision, RefState) {
	switch {
	case tools == ToolsAborted:
		return Decision{Terminal: loop.AbortedTools}, s
	case tools == ToolsPrevents:
		return Decision{Terminal: loop.HookStopped}, s
	case p.MaxTurns > 0 && s.Turn+1 > p.MaxTurns:
		return Decision{Terminal: loop.MaxTurns}, s
	}
	return next(s, loop.NextTurn)
}

// next applies the docs/spec.md §3 row of transition t (and the policy guards'
// counters), then edit.
func next(s RefState, t loop.Transition, edit ...func(*RefState)) (Decision, RefState) {
	n := s
	n.Last = t
	n.OverrideSet = false
	n.StopHookActive = false
	switch t {
	case loop.NextTurn:
		n.Turn++
		n.Recoveries, n.ReactiveCompacts, n.BlocksInRow, n.Malformed, n.Empty = 0, 0, 0, 0, 0
		n.Escalated = false
		n.StopHookActive = s.StopHookActive // kept
	case loop.ReactiveCompactRetry:
		n.ReactiveCompacts++
		n.Auto = RefAutoCompact{} // cleared
	case loop.MaxOutputTokensEscalate:
		n.OverrideSet, n.Escalated = true, true
	case loop.MaxOutputTokensRecovery:
		n.Recoveries++
	case loop.StopHookBlocking:
		n.Recoveries = 0
		n.StopHookActive = true
		n.BlocksInRow++
	case loop.TokenBudgetContinuation:
		n.Recoveries, n.ReactiveCompacts = 0, 0
	case loop.MalformedToolUseRetry:
		n.Malformed++
	case loop.EmptyReplyRetry:
		n.Empty++
	case loop.StreamErrorRecovery:
		n.Recoveries++
	}
	for _, e := range edit {
		e(&n)
	}
	return Decision{Transition: t}, n
}
