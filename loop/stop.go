package loop

import (
	"context"
	"fmt"
	"strings"
)

// StopHookFeedbackPrefix starts each blocking error fed back to the model.
const StopHookFeedbackPrefix = "Stop hook feedback: "

// stopBranch is docs/spec.md §2.5: the reply has no tool_use. It takes
// that section's steps in order, each deciding here whether it applies; the
// first that ends the run or continues the loop returns.
func (r *run) stopBranch(ctx context.Context, s *State, mfq []Message, out *streamOutcome) *Result {
	p := r.p
	w := out.withheld
	overflow := w != nil && (w.Kind == WithheldPromptTooLong || w.Kind == WithheldMedia)

	// an API error skips the recoveries (nothing is withheld) and ends
	// at step 5
	if out.apiError != nil {
		return r.stopFailure(ctx, *s, out.apiError, out.errorText)
	}

	// the released agent's retries of malformed and empty replies
	if out.malformed {
		if s.MalformedToolUseRetries >= p.MalformedToolUseRetries {
			return r.malformedExhausted(*s, mfq, out.reply)
		}
		r.stats.DiscardedOutputTokens += out.reply.Tokens
		r.advanceDropping(s, MalformedToolUseRetry, join(mfq, []Message{r.metaText(MalformedNudge)}), out.reply.ID)
		return nil
	}
	if out.empty && s.EmptyReplyRetries < p.EmptyReplyRetries {
		r.advanceDropping(s, EmptyReplyRetry, join(mfq, []Message{r.metaText(EmptyReplyNudge)}), out.reply.ID)
		return nil
	}

	// 1. collapse drain
	if w != nil && w.Kind == WithheldPromptTooLong && p.ContextCollapse && s.Transition != CollapseDrainRetry {
		if r.collapseDrain(s, mfq) {
			return nil
		}
	}

	// 2. reactive compact; without it, or when it fails, the overflow
	// ends the run
	if overflow {
		tailAs, minExchanges := r.overflowRule(out.tooLarge)
		if p.reactiveCompactActive() && s.reactiveAttempts() < p.MaxReactiveCompactsInRow && len(Exchanges(mfq)) >= minExchanges {
			if r.reactiveCompact(ctx, s, mfq, tailAs) {
				return nil
			}
		}
		return r.overflowEnd(*s, mfq, w)
	}

	if out.truncated {
		// 3. escalate
		escalated := min(p.EscalatedMaxTokens, r.model.MaxOutputTokens)
		if p.Escalation && s.MaxOutputTokensOverride == 0 && escalated > p.maxTokens(r.model) &&
			!(p.EscalateOncePerStretch && s.EscalatedThisStretch) {
			r.stats.DiscardedOutputTokens += out.reply.Tokens
			r.advanceDropping(s, MaxOutputTokensEscalate, mfq, out.reply.ID,
				func(n *State) { n.MaxOutputTokensOverride = escalated })
			return nil
		}
		// 4. recovery
		if s.MaxOutputTokensRecoveryCount < p.MaxOutputRecoveries {
			r.advance(s, MaxOutputTokensRecovery, append(grow(mfq, 2), out.reply, r.metaText(RecoveryNudge)))
			return nil
		}
		// exhausted: the withheld error ends the loop
		return r.truncationExhausted(ctx, *s, mfq, out.reply, w)
	}

	// 5. an API error ends the run through the stop-failure hooks:
	// taken first above, and by an exhausted truncation in the seed
	history := append(grow(mfq, 1), out.reply)

	// 6. stop hooks
	if r.cfg.StopHooks != nil {
		if res, decided := r.stopHooks(ctx, s, history); decided {
			return res
		}
	}

	// 7. token budget
	if p.TokenBudget && r.cfg.TokenBudget > 0 {
		if r.tokenBudget(s, history) {
			return nil
		}
	}

	// 8. completed
	return r.finish(*s, history, Completed, strings.TrimSpace(history[len(history)-1].Text()))
}

// malformedExhausted ends the run when the model asked for a tool
// without a tool_use block once more than the retries allow.
func (r *run) malformedExhausted(s State, mfq []Message, reply Message) *Result {
	msg := r.apiErrorMessage(fmt.Sprintf("The model asked for a tool without a tool_use block %d times in a row", s.MalformedToolUseRetries+1))
	return r.finish(s, join(mfq, []Message{reply, msg}), MalformedToolUseExhausted, msg.Text())
}

// collapseDrain is step 1 of docs/spec.md §2.5: commit the staged
// collapses and, when any were committed, continue with the drained
// messages (collapse_drain_retry). A collapser that fails is recorded
// and the branch goes on to step 2.
func (r *run) collapseDrain(s *State, mfq []Message) bool {
	before := SumTokens(mfq)
	in := r.collapseInput(mfq, s.StagedCollapses, 0)
	var res CollapseResult
	err := guard("collapser", func() { res = r.collapser.Drain(in) })
	if err != nil {
		emit(r, Stage{Stage: StageCollapseDrain, TokensBefore: before, TokensAfter: before, Error: err.Error()})
		return false
	}
	if res.Committed == 0 {
		return false
	}
	drained := r.resize(res.Messages)
	emit(r, Stage{Stage: StageCollapseDrain, TokensBefore: before, TokensAfter: SumTokens(drained), Changed: res.Committed,
		Staged: len(res.Staged), Removed: res.Removed})
	s.StagedCollapses = res.Staged
	r.advance(s, CollapseDrainRetry, drained)
	return true
}

// overflowRule is the rule step 2 compacts an overflow by: the trigger
// whose rule decides what is kept verbatim, and the exchanges needed. A
// 413 compacts as an auto-compaction would when the policy says
// (RequestTooLargeAsAuto), any other overflow as reactive compaction.
func (r *run) overflowRule(tooLarge bool) (CompactTrigger, int) {
	if tooLarge && r.p.RequestTooLargeAsAuto {
		return TriggerAuto, r.p.MinExchangesToCompact
	}
	return TriggerReactive, r.p.MinExchangesToReactiveCompact
}

// reactiveCompact is step 2 of docs/spec.md §2.5: compact the whole
// conversation into a summary and continue (reactive_compact_retry). A
// compaction that fails is recorded, s keeps what the attempt changed,
// and the overflow then ends the run. tailAs is the trigger whose rule
// decides what is kept verbatim.
func (r *run) reactiveCompact(ctx context.Context, s *State, mfq []Message, tailAs CompactTrigger) bool {
	count := r.count(mfq, 0)
	history, removed, kept, err := r.compact(ctx, s, TriggerReactive, tailAs, mfq, count, false)
	ev := Compaction{Trigger: TriggerReactive, TokensBefore: count, TokensAfter: count}
	if err != nil {
		ev.Error = err.Error()
		emit(r, ev)
		return false
	}
	ev.OK, ev.TokensAfter, ev.Removed, ev.Kept = true, SumTokens(afterBoundary(history)), removed, kept
	emit(r, ev)
	r.advance(s, ReactiveCompactRetry, history)
	return true
}

// overflowEnd ends the run on the withheld overflow error, shown:
// prompt_too_long, or image_error for media.
func (r *run) overflowEnd(s State, mfq []Message, w *Withheld) *Result {
	msg := r.apiErrorMessage(w.Message)
	t := PromptTooLong
	if w.Kind == WithheldMedia {
		t = ImageError
	}
	return r.finish(s, join(mfq, []Message{msg}), t, w.Message)
}

// truncationExhausted ends the run when a truncated reply has used up
// its recoveries (step 4 of docs/spec.md §2.5): the withheld error is
// shown after the reply and ends the loop through step 5 (the seed) or
// at once (the policy's TruncationExhaustedTerminal).
func (r *run) truncationExhausted(ctx context.Context, s State, mfq []Message, reply Message, w *Withheld) *Result {
	msg := r.apiErrorMessage(w.Message)
	history := join(mfq, []Message{reply, msg})
	if r.p.TruncationExhaustedTerminal == Completed {
		return r.stopFailure(ctx, s, history, w.Message)
	}
	return r.finish(s, history, r.p.TruncationExhaustedTerminal, w.Message)
}

// stopHooks is step 6 of docs/spec.md §2.5: run the stop hooks with
// stopHookActive. decided is set when they end the run (one prevents
// continuation, or a block passes the cap or the turn cap) or continue
// the loop (stop_hook_blocking); a hook that fails or passes lets the
// branch go on to step 7.
func (r *run) stopHooks(ctx context.Context, s *State, history []Message) (res *Result, decided bool) {
	var hr StopHookResult
	var err error
	in := StopHookInput{Messages: history, StopHookActive: s.StopHookActive, Turn: s.TurnCount}
	if gerr := guard("stop hooks", func() { hr, err = r.cfg.StopHooks.RunStopHooks(ctx, in) }); gerr != nil {
		err = gerr
	}
	ev := StopHook{StopHookActive: s.StopHookActive, BlocksInRow: s.StopHookBlocksInRow}
	switch {
	case err != nil:
		ev.Outcome, ev.Error = HookFail, err.Error()
		emit(r, ev)
		return nil, false
	case hr.PreventContinuation:
		ev.Outcome = HookPrevent
		if hr.Reason != "" {
			ev.Messages = []string{hr.Reason}
		}
		emit(r, ev)
		return r.finish(*s, history, StopHookPrevented, hr.Reason), true
	case len(hr.BlockingErrors) > 0:
		return r.stopHookBlocked(s, history, ev, hr.BlockingErrors), true
	}
	ev.Outcome = HookPass
	emit(r, ev)
	return nil, false
}

// stopHookBlocked follows stop hooks that returned blocking errors: past
// the policy's cap on blocks in a row the last block is overridden and
// the run ends; when blocks count as turns, one past the turn cap ends
// it (max_turns); otherwise the errors are fed back as meta user
// messages and the loop continues (stop_hook_blocking).
func (r *run) stopHookBlocked(s *State, history []Message, ev StopHook, blocking []string) *Result {
	p := r.p
	ev.Messages = blocking
	if p.StopHookBlockCap > 0 && s.StopHookBlocksInRow >= p.StopHookBlockCap {
		ev.Outcome = HookCapOverride
		emit(r, ev)
		emit(r, Notice{Text: BlockCapNotice})
		return r.finish(*s, history, p.StopHookCapAction, BlockCapNotice)
	}
	ev.Outcome, ev.BlocksInRow = HookBlock, s.StopHookBlocksInRow+1
	emit(r, ev)
	if p.StopHookBlocksCountAsTurns {
		if next := s.TurnCount + 1; p.MaxTurns > 0 && next > p.MaxTurns {
			emit(r, Notice{Text: MaxTurnsNotice})
			return r.finish(*s, history, MaxTurns, MaxTurnsNotice)
		}
	}
	history = grow(history, len(blocking))
	for _, e := range blocking {
		history = append(history, r.metaText(StopHookFeedbackPrefix+e))
	}
	r.advance(s, StopHookBlocking, history, func(n *State) {
		if p.StopHookBlocksCountAsTurns {
			n.TurnCount++
		}
	})
	return nil
}

// tokenBudget is step 7 of docs/spec.md §2.5: while the run's output is
// below the completion ratio of the token budget and not diminishing,
// nudge the model with the percentage reached and continue
// (token_budget_continuation).
func (r *run) tokenBudget(s *State, history []Message) bool {
	p := r.p
	b := s.Budget
	delta := r.outputTotal - b.LastTotal
	diminishing := b.Continuations >= p.BudgetDiminishingAfter && delta < p.BudgetDiminishingDelta && b.LastDelta < p.BudgetDiminishingDelta
	if !diminishing && float64(r.outputTotal) < p.BudgetCompletionRatio*float64(r.cfg.TokenBudget) {
		pct := r.outputTotal * 100 / r.cfg.TokenBudget
		nudge := r.metaText(fmt.Sprintf("Stopped at %d%% of the token target (%d / %d). Keep working; do not summarise.", pct, r.outputTotal, r.cfg.TokenBudget))
		r.advance(s, TokenBudgetContinuation, append(grow(history, 1), nudge), func(n *State) {
			n.Budget = BudgetTracker{Continuations: b.Continuations + 1, LastDelta: delta, LastTotal: r.outputTotal}
		})
		return true
	}
	return false
}

// stopFailure is step 5 of docs/spec.md §2.5: the last message of history is an
// API error. The stop-failure hooks are told the error (they cannot block
// or continue the loop; their failure is recorded), the ordinary stop
// hooks do not run, and the run completes.
func (r *run) stopFailure(ctx context.Context, s State, history []Message, text string) *Result {
	ev := StopFailureHook{Error: text}
	if h := r.cfg.StopFailureHooks; h != nil {
		ev.Ran = true
		in := StopFailureInput{Messages: history, Error: text, Turn: s.TurnCount}
		var err error
		if gerr := guard("stop-failure hooks", func() { err = h.RunStopFailureHooks(ctx, in) }); gerr != nil {
			err = gerr
		}
		if err != nil {
			ev.Failure = err.Error()
		}
	}
	emit(r, ev)
	return r.finish(s, history, Completed, text)
}
