package loop

import (
	"context"
	"fmt"
	"strings"
)

// StopHookFeedbackPrefix starts each blocking error fed back to the model.
const StopHookFeedbackPrefix = "Stop hook feedback: "

// stopBranch is docs/spec.md §2.5: the reply has no tool_use.
func (r *run) stopBranch(ctx context.Context, s State, mfq []Message, out streamOutcome) (State, *Result) {
	p := &r.p
	w := out.withheld
	overflow := w != nil && (w.Kind == WithheldPromptTooLong || w.Kind == WithheldMedia)

	// an API error skips the recoveries (nothing is withheld) and ends
	// at step 5
	if out.apiError != nil {
		return s, r.stopFailure(ctx, s, out.apiError, out.errorText)
	}

	// the released agent's retries of malformed and empty replies
	if out.malformed {
		if s.MalformedToolUseRetries >= p.MalformedToolUseRetries {
			msg := r.apiErrorMessage(fmt.Sprintf("The model asked for a tool without a tool_use block %d times in a row", s.MalformedToolUseRetries+1))
			return s, r.finish(s, join(mfq, []Message{out.reply, msg}), MalformedToolUseExhausted, msg.Text())
		}
		r.stats.DiscardedOutputTokens += out.reply.Tokens
		n := r.advanceDropping(s, MalformedToolUseRetry, join(mfq, []Message{r.metaText(MalformedNudge)}), out.reply.ID)
		return n, nil
	}
	if out.empty && s.EmptyReplyRetries < p.EmptyReplyRetries {
		n := r.advanceDropping(s, EmptyReplyRetry, join(mfq, []Message{r.metaText(EmptyReplyNudge)}), out.reply.ID)
		return n, nil
	}

	// 1. collapse drain
	if w != nil && w.Kind == WithheldPromptTooLong && p.ContextCollapse && s.Transition != CollapseDrainRetry {
		before := SumTokens(mfq)
		in := r.collapseInput(mfq, s.StagedCollapses, 0)
		var res CollapseResult
		err := guard("collapser", func() { res = r.collapser.Drain(in) })
		if err != nil {
			emit(r, Stage{Stage: StageCollapseDrain, TokensBefore: before, TokensAfter: before, Error: err.Error()})
		} else if res.Committed > 0 {
			drained := r.resize(res.Messages)
			emit(r, Stage{Stage: StageCollapseDrain, TokensBefore: before, TokensAfter: SumTokens(drained), Changed: res.Committed,
				Staged: len(res.Staged), Removed: res.Removed})
			s.StagedCollapses = res.Staged
			n := r.advance(s, CollapseDrainRetry, drained)
			return n, nil
		}
	}

	// 2. reactive compact
	if overflow {
		if p.ReactiveCompact && s.reactiveAttempts() < p.MaxReactiveCompactsInRow && len(Exchanges(mfq)) >= p.MinExchangesToReactiveCompact {
			count := r.count(mfq, 0)
			history, removed, kept, err := r.compact(ctx, &s, TriggerReactive, mfq, count)
			ev := Compaction{Trigger: TriggerReactive, TokensBefore: count, TokensAfter: count}
			if err == nil {
				ev.OK, ev.TokensAfter, ev.Removed, ev.Kept = true, SumTokens(afterBoundary(history)), removed, kept
				emit(r, ev)
				n := r.advance(s, ReactiveCompactRetry, history)
				return n, nil
			}
			ev.Error = err.Error()
			emit(r, ev)
		}
		msg := r.apiErrorMessage(w.Message)
		t := PromptTooLong
		if w.Kind == WithheldMedia {
			t = ImageError
		}
		return s, r.finish(s, join(mfq, []Message{msg}), t, w.Message)
	}

	if out.truncated {
		// 3. escalate
		escalated := min(p.EscalatedMaxTokens, r.model.MaxOutputTokens)
		if p.Escalation && s.MaxOutputTokensOverride == 0 && escalated > p.MaxTokens(r.model) &&
			!(p.EscalateOncePerStretch && s.EscalatedThisStretch) {
			r.stats.DiscardedOutputTokens += out.reply.Tokens
			n := r.advanceDropping(s, MaxOutputTokensEscalate, mfq, out.reply.ID, func(n State) State { n.MaxOutputTokensOverride = escalated; return n })
			return n, nil
		}
		// 4. recovery
		if s.MaxOutputTokensRecoveryCount < p.MaxOutputRecoveries {
			n := r.advance(s, MaxOutputTokensRecovery, append(mfq, out.reply, r.metaText(RecoveryNudge)))
			return n, nil
		}
		// exhausted: the withheld error is emitted and ends the loop
		// through step 5 (the seed) or at once (api_error)
		msg := r.apiErrorMessage(w.Message)
		history := join(mfq, []Message{out.reply, msg})
		if p.TruncationExhaustedTerminal == Completed {
			return s, r.stopFailure(ctx, s, history, w.Message)
		}
		return s, r.finish(s, history, p.TruncationExhaustedTerminal, w.Message)
	}

	history := append(mfq, out.reply)

	// 6. stop hooks
	if r.cfg.StopHooks != nil {
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
		case hr.PreventContinuation:
			ev.Outcome = HookPrevent
			if hr.Reason != "" {
				ev.Messages = []string{hr.Reason}
			}
			emit(r, ev)
			return s, r.finish(s, history, StopHookPrevented, hr.Reason)
		case len(hr.BlockingErrors) > 0:
			ev.Messages = hr.BlockingErrors
			if p.StopHookBlockCap > 0 && s.StopHookBlocksInRow >= p.StopHookBlockCap {
				ev.Outcome = HookCapOverride
				emit(r, ev)
				emit(r, Notice{Text: BlockCapNotice})
				return s, r.finish(s, history, p.StopHookCapAction, BlockCapNotice)
			}
			ev.Outcome, ev.BlocksInRow = HookBlock, s.StopHookBlocksInRow+1
			emit(r, ev)
			if p.StopHookBlocksCountAsTurns {
				if next := s.TurnCount + 1; p.MaxTurns > 0 && next > p.MaxTurns {
					emit(r, Notice{Text: MaxTurnsNotice})
					return s, r.finish(s, history, MaxTurns, MaxTurnsNotice)
				}
			}
			feedback := make([]Message, 0, len(hr.BlockingErrors))
			for _, e := range hr.BlockingErrors {
				feedback = append(feedback, r.metaText(StopHookFeedbackPrefix+e))
			}
			n := r.advance(s, StopHookBlocking, append(history, feedback...), func(n State) State {
				if p.StopHookBlocksCountAsTurns {
					n.TurnCount++
				}
				return n
			})
			return n, nil
		default:
			ev.Outcome = HookPass
			emit(r, ev)
		}
	}

	// 7. token budget
	if p.TokenBudget && r.cfg.TokenBudget > 0 {
		b := s.Budget
		delta := r.outputTotal - b.LastTotal
		diminishing := b.Continuations >= p.BudgetDiminishingAfter && delta < p.BudgetDiminishingDelta && b.LastDelta < p.BudgetDiminishingDelta
		if !diminishing && float64(r.outputTotal) < p.BudgetCompletionRatio*float64(r.cfg.TokenBudget) {
			pct := r.outputTotal * 100 / r.cfg.TokenBudget
			nudge := r.metaText(fmt.Sprintf("Stopped at %d%% of the token target (%d / %d). Keep working; do not summarise.", pct, r.outputTotal, r.cfg.TokenBudget))
			n := r.advance(s, TokenBudgetContinuation, append(history, nudge), func(n State) State {
				n.Budget = BudgetTracker{Continuations: b.Continuations + 1, LastDelta: delta, LastTotal: r.outputTotal}
				return n
			})
			return n, nil
		}
	}

	// 8. completed
	return s, r.finish(s, history, Completed, strings.TrimSpace(history[len(history)-1].Text()))
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
