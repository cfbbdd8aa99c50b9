package loop

import (
	"context"
	"fmt"
	"slices"
)

// prepareMessages is docs/spec.md §2.1: the messages after the last boundary,
// through the tool-result budget, snip, microcompact, context collapse and
// auto-compact. It returns the messages, whether auto-compact compacted
// them and what snip freed (the count cannot see it: the thresholds
// subtract it); it may end the run (the thrash guard).
func (r *run) prepareMessages(ctx context.Context, s *State, limits Limits) ([]Message, bool, int, *Result) {
	p := r.p
	// 1. the messages after the last compact boundary
	mfq := r.dropBeforeBoundary(s.Messages)

	// 2. tool-result budget
	if p.ToolResultBudget > 0 {
		mfq = r.toolResultBudget(mfq)
	}

	// 3. snip
	snipFreed := 0
	if p.Snip {
		mfq, snipFreed = r.snip(mfq, limits)
	}

	// 4. microcompact
	if p.Microcompact {
		mfq = r.microcompact(mfq)
	}

	// 5. context collapse
	if p.ContextCollapse {
		mfq = r.collapse(s, mfq, snipFreed)
	}

	// 6. auto-compact
	if !p.autoCompactActive() || p.reactiveOnly(r.model.Name) {
		return mfq, false, snipFreed, nil
	}
	mfq, compacted, term := r.autoCompact(ctx, s, mfq, snipFreed, limits)
	return mfq, compacted, snipFreed, term
}

// toolResultBudget is step 2 of docs/spec.md §2.1: the tool results of
// each message cut to the policy's budget.
func (r *run) toolResultBudget(mfq []Message) []Message {
	p := r.p
	before := r.size(mfq)
	// only the newest message can hold tool results not yet budgeted:
	// the rest were checked when they were newest (or at the start)
	from := len(mfq) - 1
	if !r.budgeted {
		from, r.budgeted = 0, true
	}
	out, n := applyToolResultBudget(mfq, max(from, 0), p.ToolResultBudget)
	if n > 0 {
		mfq = r.resize(out)
		emit(r, Stage{Stage: StageToolResultBudget, TokensBefore: before, TokensAfter: r.size(mfq), Changed: n})
	}
	return mfq
}

// snip is step 3 of docs/spec.md §2.1: old history dropped past the
// warning threshold. It returns the messages and the tokens snip freed;
// a snipper that fails is recorded and changes nothing.
func (r *run) snip(mfq []Message, limits Limits) ([]Message, int) {
	p := r.p
	snipFreed := 0
	before := r.size(mfq)
	var res SnipResult
	err := guard("snipper", func() {
		res = r.snipper.Snip(SnipInput{Messages: mfq, Tokens: r.count(mfq, 0), Threshold: limits.WarningThreshold, KeepRecent: p.SnipKeepRecent})
	})
	switch {
	case err != nil:
		emit(r, Stage{Stage: StageSnip, TokensBefore: before, TokensAfter: before, Error: err.Error()})
	case len(res.Removed) > 0 || res.TokensFreed > 0:
		mfq = r.resize(res.Messages)
		snipFreed = max(res.TokensFreed, 0)
		emit(r, Stage{Stage: StageSnip, TokensBefore: before, TokensAfter: r.size(mfq), TokensFreed: snipFreed, Removed: res.Removed})
	}
	return mfq, snipFreed
}

// microcompact is step 4 of docs/spec.md §2.1: old tool results cleared,
// the newest kept. A microcompactor that fails is recorded and changes
// nothing.
func (r *run) microcompact(mfq []Message) []Message {
	p := r.p
	before := r.size(mfq)
	var res MicrocompactResult
	// the default microcompactor, which clears in place, sees only
	// the messages from the oldest result it may still clear
	_, isDefault := r.micro.(KeepRecentMicrocompactor)
	from, oldTail := 0, 0
	if isDefault {
		from = r.microFrom.from(mfq)
		oldTail = SumTokens(mfq[from:])
	}
	err := guard("microcompactor", func() {
		// the loop owns its history (seams get views valid only during
		// their call), and after the first pass only the newest
		// results can need clearing
		res = r.micro.Microcompact(MicrocompactInput{Messages: mfq[from:], KeepRecent: p.MicrocompactKeepRecent,
			Owned: true, Incremental: r.microcompacted})
		r.microcompacted = true
	})
	switch {
	case err != nil:
		emit(r, Stage{Stage: StageMicrocompact, TokensBefore: before, TokensAfter: before, Error: err.Error()})
	case res.Cleared > 0:
		if from > 0 {
			// cleared in place, from `from` on: mfq holds the changes
			r.resizeTail(mfq, from, before, oldTail)
		} else {
			mfq = r.resize(res.Messages)
		}
		emit(r, Stage{Stage: StageMicrocompact, TokensBefore: before, TokensAfter: r.size(mfq), Changed: res.Cleared})
	}
	if isDefault && err == nil {
		r.microFrom.remember(mfq, from)
	}
	return mfq
}

// collapse is step 5 of docs/spec.md §2.1: ranges of old messages folded
// into summaries, staged collapses kept in s. A collapser that fails is
// recorded and changes nothing.
func (r *run) collapse(s *State, mfq []Message, snipFreed int) []Message {
	before := r.size(mfq)
	in := r.collapseInput(mfq, s.StagedCollapses, snipFreed)
	var res CollapseResult
	err := guard("collapser", func() { res = r.collapser.Collapse(in) })
	switch {
	case err != nil:
		emit(r, Stage{Stage: StageCollapse, TokensBefore: before, TokensAfter: before, Error: err.Error()})
	case res.Committed > 0 || len(res.Staged) != len(s.StagedCollapses):
		mfq = r.resize(res.Messages)
		s.StagedCollapses = res.Staged
		emit(r, Stage{Stage: StageCollapse, TokensBefore: before, TokensAfter: r.size(mfq), Changed: res.Committed,
			Staged: len(res.Staged), Removed: res.Removed})
	}
	return mfq
}

// dropBeforeBoundary returns the messages after the last compact boundary
// and records the boundary and what precedes it leaving the history: they
// are never sent again, and the history this iteration leaves no longer
// holds them.
func (r *run) dropBeforeBoundary(msgs []Message) []Message {
	mfq := r.afterBoundary(msgs)
	if dropped := msgs[:len(msgs)-len(mfq)]; len(dropped) > 0 {
		removed := make([]string, len(dropped))
		for i, m := range dropped {
			removed[i] = m.ID
		}
		n := r.size(mfq)
		emit(r, Stage{Stage: StageBoundary, TokensBefore: n + SumTokens(dropped), TokensAfter: n, Removed: removed})
	}
	return mfq
}

// collapseInput builds the collapser's input with the policy's thresholds.
func (r *run) collapseInput(mfq []Message, staged []Span, snipFreed int) CollapseInput {
	eff := r.p.limits(r.model).EffectiveWindow
	return CollapseInput{Messages: mfq, Tokens: r.count(mfq, snipFreed), Staged: staged,
		StageAt: eff * r.p.CollapseStagePercent / 100, CommitAt: eff * r.p.CollapseCommitPercent / 100,
		KeepRecent: r.p.CollapseKeepRecent}
}

// resize gives every message without a size (or ID) one, in place: the
// lists the stages return belong to the loop, like its history.
func (r *run) resize(msgs []Message) []Message {
	for i := range msgs {
		if msgs[i].Tokens == 0 || msgs[i].ID == "" {
			r.prepare(&msgs[i])
		}
	}
	// entries may have changed in place: measure afresh
	r.sizes = sizeCache{}
	r.rec.edit(msgs, 0)
	return msgs
}

// resizeTail is resize for msgs changed in place from index from on, of
// which before was the size and oldTail the size of msgs[from:] before
// the change: it costs the tail, not the whole list. msgs is not empty.
func (r *run) resizeTail(msgs []Message, from, before, oldTail int) {
	tail := msgs[from:]
	for i := range tail {
		if tail[i].Tokens == 0 || tail[i].ID == "" {
			r.prepare(&tail[i])
		}
	}
	r.sizes = sizeCache{first: &msgs[0], n: len(msgs), lastID: msgs[len(msgs)-1].ID, sum: before - oldTail + SumTokens(tail)}
	r.rec.edit(msgs, from)
}

// autoCompact is step 6 of §2.1 with the circuit breaker, the too-few-
// exchanges skip and the thrash guard.
func (r *run) autoCompact(ctx context.Context, s *State, mfq []Message, snipFreed int, limits Limits) ([]Message, bool, *Result) {
	p := r.p
	count := r.count(mfq, snipFreed)
	if count < limits.AutoCompactThreshold {
		return mfq, false, nil
	}
	ev := Compaction{Trigger: TriggerAuto, TokensBefore: count, TokensAfter: count, Threshold: limits.AutoCompactThreshold}
	t := s.AutoCompactTracking
	if t != nil && t.ConsecutiveFailures >= p.MaxAutoCompactFailures {
		ev.Skipped, ev.Failures = "circuit_breaker", t.ConsecutiveFailures
		emit(r, ev)
		return mfq, false, nil
	}
	minExchanges := p.MinExchangesToCompact
	if len(mfq) > 0 && mfq[0].CompactSummary {
		minExchanges = p.MinExchangesToLaterCompact // a later auto-compaction
	}
	if len(Exchanges(mfq)) < minExchanges && count < limits.BlockingLimit {
		ev.Skipped = "too_few_exchanges"
		emit(r, ev)
		return mfq, false, nil
	}
	rapid := 0
	if p.RapidRefillWindow > 0 && t != nil && t.Compacted && t.RepliesSinceCompact <= p.RapidRefillWindow {
		rapid = t.RapidRefills + 1
		if rapid >= p.RapidRefillTrip {
			ev.Skipped, ev.RapidRefill = "rapid_refill_breaker", rapid
			emit(r, ev)
			msg := r.apiErrorMessage(fmt.Sprintf("Context refilled to the auto-compact threshold %d times in a row right after compacting; stopping", rapid))
			return nil, false, r.finish(*s, join(mfq, []Message{msg}), RapidRefillBreaker, msg.Text())
		}
	}
	history, removed, kept, err := r.compact(ctx, s, TriggerAuto, TriggerAuto, mfq, count, rapid > 0)
	if err != nil {
		failures := 1
		if t != nil {
			failures = t.ConsecutiveFailures + 1
		}
		nt := AutoCompactTracking{ConsecutiveFailures: failures}
		if t != nil {
			nt = *t
			nt.ConsecutiveFailures = failures
			// a rapid refill counts whether or not its compaction
			// succeeds; the clock still runs from the last compaction
			// that did
			nt.RapidRefills = rapid
		}
		s.AutoCompactTracking = &nt
		ev.Error, ev.Failures, ev.RapidRefill = err.Error(), failures, rapid
		emit(r, ev)
		if p.AutoCompactFailureEndsRun {
			msg := r.apiErrorMessage("Auto-compaction failed: " + err.Error())
			return nil, false, r.finish(*s, join(mfq, []Message{msg}), APIError, msg.Text())
		}
		return mfq, false, nil
	}
	s.AutoCompactTracking = &AutoCompactTracking{Compacted: true, TurnID: fmt.Sprintf("compact-%d", r.stats.Iterations), RapidRefills: rapid}
	s.Messages = history
	ev.OK, ev.TokensAfter, ev.Removed, ev.Kept, ev.RapidRefill = true, SumTokens(afterBoundary(history)), removed, kept, rapid
	emit(r, ev)
	// the iteration goes on from the messages after the new boundary
	return r.dropBeforeBoundary(history), true, nil
}

// compact runs the compactor on mfq and builds the post-compact history:
// boundary, summary, kept tail. rapid says the compaction is a rapid
// refill. It returns the history, the IDs removed and the number of
// messages kept.
func (r *run) compact(ctx context.Context, s *State, trigger, tailAs CompactTrigger, mfq []Message, count int, rapid bool) ([]Message, []string, int, error) {
	tail := r.p.PreserveTailExchanges
	later := len(mfq) > 0 && mfq[0].CompactSummary
	switch {
	case tailAs == TriggerReactive && (r.p.ReactiveTail == TailHalf || r.p.ReactiveTail == TailHalfCapped):
		tail = halfTail(mfq, r.p.ReactiveTail == TailHalfCapped)
	case tailAs == TriggerAuto && later && (r.p.LaterAutoTail == TailNone || r.p.LaterAutoTail == TailNoneOnRapidRefill && rapid):
		tail = 0 // a later auto-compaction summarises everything
	}
	req := CompactRequest{Trigger: trigger, Messages: mfq, Tokens: count, Model: s.ToolUseContext.Model,
		MaxTokens: r.p.maxTokens(r.model), Tools: s.ToolUseContext.Tools, PreserveTail: tail, Call: r.call}
	var res CompactResult
	var err error
	if gerr := guard("compactor", func() { res, err = r.compactor.Compact(ctx, req) }); gerr != nil {
		err = gerr
	}
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%s compaction: %w", trigger, err)
	}
	if serr := checkSize("summary tokens", res.SummaryTokens); serr != nil {
		return nil, nil, 0, fmt.Errorf("%s compaction: %w", trigger, serr)
	}
	cut := len(mfq) - min(max(res.Keep, 0), len(mfq))
	// keep whole exchanges so no tool_use is parted from its result
	snapped := 0
	for _, st := range Exchanges(mfq) {
		if st <= cut {
			snapped = st
		}
	}
	if cut < len(mfq) {
		cut = snapped
	}
	prompts := keptPrompts(mfq[:cut], r.p.CompactKeepPromptTokens)
	removed := make([]string, 0, cut)
	for _, m := range mfq[:cut] {
		if !slices.ContainsFunc(prompts, func(p Message) bool { return p.ID == m.ID }) {
			removed = append(removed, m.ID)
		}
	}
	boundary := r.newMessage(Message{Role: RoleUser, CompactBoundary: true, Meta: true, Synthetic: true,
		Blocks: []Block{{Type: BlockText, Text: fmt.Sprintf("[%s compact boundary]", trigger)}}})
	summary := r.newMessage(Message{Role: RoleUser, CompactSummary: true, Meta: true, Tokens: res.SummaryTokens,
		Blocks: []Block{{Type: BlockText, Text: res.Summary}}})
	history := join([]Message{boundary}, prompts, []Message{summary}, mfq[cut:])
	return history, removed, len(prompts) + len(mfq) - cut, nil
}

// keptPrompts are the user's own messages of the summarised part that a
// compaction keeps verbatim before the summary (Policy.CompactKeepPromptTokens):
// the newest first while their tokens fit in budget, in their order.
// A prompt is a user message of text only that the user wrote (not
// meta, synthetic, a summary or a boundary).
func keptPrompts(older []Message, budget int) []Message {
	var out []Message
	used := 0
	for i := len(older) - 1; i >= 0 && budget > 0; i-- {
		m := older[i]
		if !isPrompt(m) {
			continue
		}
		if used+m.Tokens > budget {
			break
		}
		used += m.Tokens
		out = append(out, m)
	}
	slices.Reverse(out)
	return out
}

// isPrompt reports whether m is a message the user wrote: a user message
// of text blocks only, not made by the loop.
func isPrompt(m Message) bool {
	if m.Role != RoleUser || m.Meta || m.Synthetic || m.CompactSummary || m.CompactBoundary || m.APIError || len(m.Blocks) == 0 {
		return false
	}
	for _, b := range m.Blocks {
		if b.Type != BlockText {
			return false
		}
	}
	return true
}

// guard runs f, turning a panic into an error naming where.
func guard(where string, f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicError(where, v)
		}
	}()
	f()
	return nil
}
