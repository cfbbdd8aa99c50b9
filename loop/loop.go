package loop

import (
	"context"
	"fmt"
)

// Texts the loop shows the model or the user.
const (
	RecoveryNudge       = "Output token limit hit. Resume directly, no apology, no recap of what you were doing. Pick up mid-thought if that is where the cut happened."
	InterruptedResult   = "Interrupted by user"
	InterruptedNotice   = "[Request interrupted by user]"
	FallbackResult      = "Model fallback: this tool_use was discarded when the request was re-sent to another model"
	ModelErrorResult    = "The model request failed before this tool ran"
	MaxTurnsNotice      = "Reached the maximum number of turns"
	BlockCapNotice      = "Stop hooks blocked too many times in a row; their last block was overridden"
	MalformedNudge      = "Your reply said it would use a tool but contained no tool_use block. Call the tool again, or answer without tools."
	EmptyReplyNudge     = "Your reply was empty. Please answer."
	PromptTooLongNotice = "Prompt is too long"
	// StreamErrorNudge follows a reply kept after its stream was cut.
	StreamErrorNudge = "Your previous reply was cut off by a stream error. Continue from where it stopped; do not repeat what you already wrote."
	// StreamErrorToolResult answers a tool_use kept from a cut stream.
	StreamErrorToolResult = "The response stream failed after this tool_use; the tool did not run"
)

// loop is the outer while(true) of docs/spec.md §2.
func (r *run) loop(ctx context.Context, s State) *Result {
	limit := r.cfg.IterationLimit
	if limit == 0 {
		limit = DefaultIterationLimit
	}
	for {
		if limit > 0 && r.stats.Iterations >= limit {
			emit(r, Notice{Text: fmt.Sprintf("halted by the harness: iteration limit %d reached without a terminal", limit)})
			r.settle(&s)
			return &Result{State: s, Trace: r.trace, Stats: r.stats, Halted: true}
		}
		r.stats.Iterations++
		emit(r, IterationStart{Iteration: r.stats.Iterations, Turn: s.TurnCount, Messages: len(s.Messages)})
		// the transition's diff covers the whole iteration; only a
		// trace, an Observer or OnModelCall reads it (and a run that
		// stops listening never starts again)
		if r.listening() || r.cfg.OnModelCall != nil {
			r.iterStart = s
		}

		// 2.1 prepare messages
		limits := r.p.limits(r.model)
		mfq, compacted, snipFreed, term := r.prepareMessages(ctx, &s, limits)
		if term != nil {
			return term
		}

		// 2.2 blocking limit, on the count minus what snip freed (as
		// collapse and auto-compact see it)
		if !compacted && r.blockingCheckApplies() {
			if count := r.count(mfq, snipFreed); count >= limits.BlockingLimit {
				msg := r.apiErrorMessage(fmt.Sprintf("%s: %d tokens is at or over the blocking limit %d", PromptTooLongNotice, count, limits.BlockingLimit))
				return r.finish(s, join(mfq, []Message{msg}), BlockingLimit, msg.Text())
			}
		}

		// 2.3 call the model
		r.mainState = &s
		var out streamOutcome
		r.callModel(ctx, &s, mfq, &out)
		r.mainState = nil
		if out.terminal != nil {
			return out.terminal
		}

		// 2.4 after the stream
		r.emitSummary(&s)

		if out.streamCut {
			r.streamErrorRecovery(&s, mfq, &out)
			continue
		}

		var res *Result
		if out.apiError != nil || len(out.toolUses) == 0 {
			res = r.stopBranch(ctx, &s, mfq, &out)
		} else {
			res = r.toolBranch(ctx, &s, mfq, &out)
		}
		if res != nil {
			return res
		}
	}
}

// count is the token count the thresholds compare: the counter's figure
// minus what snip freed.
func (r *run) count(msgs []Message, snipFreed int) int {
	return max(r.counter.Count(msgs)-snipFreed, 0)
}

// blockingCheckApplies: the blocking limit is enforced when the user has
// auto-compact off (the seed notes: "the user turned autocompact off"),
// and otherwise unless context collapse or the reactive path owns
// overflow; never for a reactive-only model. With auto-compact on and
// collapse on, auto-compact does not run (collapse replaces it) but
// collapse owns overflow, so the check is skipped.
func (r *run) blockingCheckApplies() bool {
	p := r.p
	switch {
	case p.reactiveOnly(r.model.Name):
		return false
	case !p.AutoCompact:
		return true
	case p.ContextCollapse:
		return false
	case p.ReactiveOwnsOverflow && p.ReactiveCompact:
		return false
	}
	return true
}

// streamOutcome is what 2.3 produced: the run's end, or the reply (the
// one assistant message of assistantMessages) with what it needs next.
type streamOutcome struct {
	terminal *Result
	reply    Message
	toolUses []Block
	// toolUseIDs are the ids of toolUses, as the response event lists them.
	toolUseIDs []string
	withheld   *Withheld
	// apiError is the history ending in an API-error message, when the
	// request failed with an API error the policy sends through the stop
	// branch (the seed).
	apiError  []Message
	errorText string
	malformed bool
	empty     bool
	truncated bool
	// tooLarge: the withheld error was a 413 (request too large).
	tooLarge bool
	// streamCut: the stream was cut after content the policy keeps
	// (stream_error_recovery).
	streamCut bool
}

// callModel sends the main request with the inner fallback loop (2.3) and
// handles abort (2.4), leaving the outcome in *out (zero on entry; the
// outcome, which holds the reply, is filled in place rather than copied
// back up).
func (r *run) callModel(ctx context.Context, s *State, mfq []Message, out *streamOutcome) {
	maxTokens := r.p.maxTokens(r.model)
	if s.MaxOutputTokensOverride > 0 {
		maxTokens = s.MaxOutputTokensOverride
	}
	for {
		req := Request{Purpose: PurposeMain, Model: s.ToolUseContext.Model, MaxTokens: maxTokens, Messages: mfq,
			InputTokens: r.size(mfq), Tools: s.ToolUseContext.Tools}
		blocks, resp, err := r.call.send(ctx, req)
		var p partial
		r.partialReply(&req, blocks, resp, err, &p)

		if ctx.Err() != nil {
			// 2.4: aborted while streaming
			history := r.partialHistory(mfq, &p, InterruptedResult)
			emit(r, Notice{Text: InterruptedNotice})
			out.terminal = r.finish(*s, history, AbortedStreaming, InterruptedNotice)
			return
		}

		if re := asRequestError(err); re != nil {
			if re.Kind == KindFallbackTriggered && r.p.Fallback && r.cfg.FallbackModel.Name != "" && !r.fellBack {
				r.fallBack(s, &p, re)
				maxTokens = min(maxTokens, r.model.MaxOutputTokens)
				continue
			}
			*out = r.requestFailed(s, mfq, &p, re)
			return
		}
		// anything thrown (not an API answer): model_error
		if err != nil {
			out.terminal = r.failRequest(*s, mfq, &p, ModelError, err.Error())
			return
		}
		r.replied(s, &p, resp, maxTokens, out)
		return
	}
}

// partial is what a main request streamed: its blocks, as an assistant
// message (set when a block came or the request succeeded), and the
// tool_uses among them.
type partial struct {
	blocks []Block
	msg    Message
	uses   []Block
}

// partialReply makes in *p the assistant message of what req streamed,
// with the usage of a successful reply, and records its tool_use ids.
func (r *run) partialReply(req *Request, blocks []Block, resp Response, err error, p *partial) {
	var msg Message
	if len(blocks) > 0 || err == nil {
		msg = Message{Role: RoleAssistant, Blocks: blocks, Model: req.Model, StopReason: resp.StopReason}
		if err == nil {
			u := &r.usages.cut(1)[0]
			*u = resp.Usage
			msg.Usage = u
			// the reported output is the reply's size; only a reply
			// without one is estimated
			msg.Tokens = u.OutputTokens
		}
		r.prepare(&msg)
	}
	uses := msg.Blocks
	if !allToolUses(uses) {
		// a reply of tool_uses alone (the usual one) is its own list
		r.uses = appendToolUses(r.uses[:0], msg.Blocks)
		uses = r.uses
	}
	for _, u := range uses {
		r.toolUseIDs[u.ID] = true
	}
	p.blocks, p.msg, p.uses = blocks, msg, uses
}

// fallBack switches the run to the fallback model (2.3's inner loop):
// the partial reply is dropped and its tool_uses are orphaned, answered
// with synthetic results.
func (r *run) fallBack(s *State, p *partial, re *RequestError) {
	r.fellBack = true
	from := s.ToolUseContext.Model
	r.model = r.cfg.FallbackModel
	s.ToolUseContext.Model = r.model.Name
	var orphans []string
	for _, u := range p.uses {
		orphans = append(orphans, u.ID)
	}
	emit(r, Fallback{From: from, To: r.model.Name, Orphans: orphans, Dropped: p.msg.ID})
	r.syntheticResults(p.uses, FallbackResult)
	r.stats.DiscardedOutputTokens += p.msg.Tokens
	emit(r, Notice{Text: fmt.Sprintf("Switched from %s to %s (%s)", from, r.model.Name, re.Message)})
}

// requestFailed is 2.3 after an API error other than a fallback: an
// overflow is withheld for the stop branch's recoveries, an image error
// ends the run, a cut stream whose content the policy keeps goes on, and
// any other error becomes an API-error message for the stop branch (the
// seed) or ends the run at once.
func (r *run) requestFailed(s *State, mfq []Message, p *partial, re *RequestError) streamOutcome {
	switch {
	case re.Kind == KindPromptTooLong || (re.Kind == KindRequestTooLarge && !r.p.RequestTooLargeIsMedia):
		w := Withheld{Kind: WithheldPromptTooLong, Message: re.Error()}
		emit(r, w)
		return streamOutcome{withheld: &w, tooLarge: re.Kind == KindRequestTooLarge}
	case re.Kind == KindMediaTooLarge || re.Kind == KindRequestTooLarge:
		w := Withheld{Kind: WithheldMedia, Message: re.Error()}
		emit(r, w)
		return streamOutcome{withheld: &w, tooLarge: re.Kind == KindRequestTooLarge}
	case re.Kind == KindImageSize:
		return streamOutcome{terminal: r.failRequest(*s, mfq, p, ImageError, re.Error())}
	case r.call.cut && keepsContent(p.blocks) && s.MaxOutputTokensRecoveryCount < r.p.streamCutBudget():
		if r.p.StreamCutKeepsReply && len(p.uses) > 0 {
			// kept as if it had finished: its tool_uses run (codex)
			ids := make([]string, len(p.uses))
			for i, u := range p.uses {
				ids[i] = u.ID
			}
			return streamOutcome{reply: p.msg, toolUses: p.uses, toolUseIDs: ids}
		}
		return streamOutcome{reply: p.msg, toolUses: p.uses, streamCut: true}
	}
	if r.p.APIErrorTerminal == Completed {
		// docs/spec.md §2.3: an API error is not thrown; it becomes an
		// API-error message and the stop branch ends the run
		return streamOutcome{apiError: r.failedHistory(mfq, p, re.Error()), errorText: re.Error()}
	}
	return streamOutcome{terminal: r.failRequest(*s, mfq, p, r.p.APIErrorTerminal, re.Error())}
}

// replied is 2.3 after a reply: its output counts, and it is marked in
// *out for the branch that takes it (truncated, with the error withheld;
// a tool_use stop without a tool_use; empty).
func (r *run) replied(s *State, p *partial, resp Response, maxTokens int, out *streamOutcome) {
	r.outputTotal += resp.Usage.OutputTokens
	if t := s.AutoCompactTracking; t != nil && t.Compacted {
		c := *t
		c.RepliesSinceCompact++
		s.AutoCompactTracking = &c
	}
	out.reply, out.toolUses, out.toolUseIDs = p.msg, p.uses, r.call.toolUseIDs
	switch {
	case len(p.uses) > 0:
	case resp.StopReason == StopMaxTokens:
		out.truncated = true
		w := Withheld{Kind: WithheldMaxOutput, Message: fmt.Sprintf("response truncated at max_tokens %d", maxTokens)}
		out.withheld = &w
		emit(r, w)
	case resp.StopReason == StopToolUse && r.p.MalformedToolUseRetries > 0:
		out.malformed = true
	case emptyReply(p.blocks) && r.p.EmptyReplyRetries > 0:
		out.empty = true
	}
}

// failRequest ends the run after a failed request: tool_uses received
// before the failure get synthetic results and the error is shown.
func (r *run) failRequest(s State, mfq []Message, p *partial, t Terminal, text string) *Result {
	return r.finish(s, r.failedHistory(mfq, p, text), t, text)
}

// failedHistory is the history after a failed request: the partial reply,
// synthetic results for its tool_uses, and the message showing the error.
func (r *run) failedHistory(mfq []Message, p *partial, text string) []Message {
	return join(r.partialHistory(mfq, p, ModelErrorResult), []Message{r.apiErrorMessage(text)})
}

// partialHistory is mfq followed by the partial reply, when anything
// streamed, and a synthetic result with resultText for each of its
// tool_uses: the history of a request that failed or was aborted.
func (r *run) partialHistory(mfq []Message, p *partial, resultText string) []Message {
	if len(p.blocks) == 0 {
		return mfq
	}
	history := join(mfq, []Message{p.msg})
	if len(p.uses) > 0 {
		history = append(history, r.resultMessage(r.syntheticResults(p.uses, resultText), true))
	}
	return history
}

// allToolUses reports whether every block is a tool_use (false for none).
func allToolUses(blocks []Block) bool {
	for bi := range blocks {
		if blocks[bi].Type != BlockToolUse {
			return false
		}
	}
	return len(blocks) > 0
}

func emptyReply(blocks []Block) bool {
	for _, b := range blocks {
		if b.Type != BlockText || b.Text != "" {
			return false
		}
	}
	return true
}
