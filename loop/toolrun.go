package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

// InputErrorResult starts the result of a tool_use whose input is not
// valid JSON.
const InputErrorResult = "Input error: the tool input is not valid JSON"

// toolBranch is docs/spec.md §2.6: the reply has tool_use blocks.
func (r *run) toolBranch(ctx context.Context, s *State, mfq []Message, out *streamOutcome) *Result {
	p := r.p
	emit(r, ToolBatch{ToolUses: out.toolUseIDs})
	runs := r.runTools(ctx, out.toolUses)

	blocks := r.blockLists.cut(len(runs))[:0]
	prevent := false
	for i := range runs {
		c, o := runs[i].call, runs[i].outcome
		if !o.ran {
			blocks = append(blocks, r.syntheticResults([]Block{out.toolUses[i]}, InterruptedResult)...)
			continue
		}
		b := Block{Type: BlockToolResult, ToolUseID: c.ID, Text: o.Content, Tokens: o.Tokens, IsError: o.IsError}
		ev := ToolResultEvent{ToolUseID: c.ID, Name: c.Name, IsError: o.IsError, Tokens: blockTokens(b), Prevent: o.PreventContinuation,
			InputError: runs[i].badInput}
		if o.err != nil {
			b.Text, b.IsError, b.Tokens = "Error: "+o.err.Error(), true, 0
			ev.IsError, ev.Error, ev.Tokens = true, o.err.Error(), blockTokens(b)
		}
		emit(r, ev)
		blocks = append(blocks, b)
		prevent = prevent || o.PreventContinuation
	}
	result := r.resultMessage(blocks, false)
	history := append(grow(mfq, 2), out.reply, result)

	if ctx.Err() != nil {
		emit(r, Notice{Text: InterruptedNotice})
		return r.finish(*s, history, AbortedTools, InterruptedNotice)
	}
	if prevent {
		return r.finish(*s, history, HookStopped, "a tool hook prevented continuation")
	}
	if t := s.AutoCompactTracking; t != nil && t.Compacted {
		c := *t
		c.TurnCounter++
		s.AutoCompactTracking = &c
	}
	if p.ToolUseSummary && r.cfg.Summarizer != nil {
		calls := make([]ToolCall, len(runs))
		for i := range runs {
			calls[i] = runs[i].call
		}
		s.PendingToolUseSummary = startSummary(ctx, r.cfg.Summarizer, out.toolUseIDs, calls, []Message{result})
	}
	if next := s.TurnCount + 1; p.MaxTurns > 0 && next > p.MaxTurns {
		emit(r, Notice{Text: MaxTurnsNotice})
		return r.finish(*s, history, MaxTurns, MaxTurnsNotice)
	}
	r.advance(s, NextTurn, history)
	return nil
}

// toolOutcome is one call's outcome; ran is false for a call that never
// finished because of an abort.
type toolOutcome struct {
	ToolOutcome
	ran bool
	err error
}

// toolRun is one tool_use's call and its outcome.
type toolRun struct {
	call    ToolCall
	outcome toolOutcome
	// badInput is set when the call's input is not valid JSON: it gets an
	// input-error result instead of running.
	badInput bool
}

// runTools runs the calls: consecutive concurrency-safe calls together,
// the rest one by one, stopping at an abort. Results keep block order. An
// abort during a concurrent group leaves every call of the group
// unfinished, so the outcome does not depend on scheduling.
func (r *run) runTools(ctx context.Context, uses []Block) []toolRun {
	runs := slices.Grow(r.runs[:0], len(uses))[:len(uses)]
	clear(runs)
	r.runs = runs
	for i, u := range uses {
		runs[i].call = ToolCall{ID: u.ID, Name: u.Name, Input: u.Input, Index: i}
		runs[i].badInput = !r.validInput(u.Input)
	}
	safe, _ := r.cfg.Tools.(ConcurrencySafe)
	for i := 0; i < len(runs); {
		if ctx.Err() != nil {
			break
		}
		j := i + 1
		if safe != nil && r.isSafe(safe, runs[i].call) {
			for j < len(runs) && r.isSafe(safe, runs[j].call) {
				j++
			}
		}
		if j-i == 1 {
			runs[i].outcome = r.runTool(ctx, runs[i])
		} else {
			var wg sync.WaitGroup
			for k := i; k < j; k++ {
				wg.Add(1)
				go func(k int) {
					defer wg.Done()
					runs[k].outcome = r.runTool(ctx, runs[k])
				}(k)
			}
			wg.Wait()
			if ctx.Err() != nil {
				// an abort during a concurrent group interrupts the whole
				// group: which calls finished before it is a matter of
				// scheduling, and the trace must not depend on that
				for k := i; k < j; k++ {
					runs[k].outcome = toolOutcome{}
				}
			}
		}
		i = j
	}
	return runs
}

func (r *run) isSafe(safe ConcurrencySafe, c ToolCall) (ok bool) {
	if guard("tools concurrency check", func() { ok = safe.ConcurrencySafe(c) }) != nil {
		return false
	}
	return ok
}

// runTool runs one call, turning bad input, errors and panics into error
// results and an abort into an unfinished call.
func (r *run) runTool(ctx context.Context, tr toolRun) toolOutcome {
	c := tr.call
	if tr.badInput {
		return toolOutcome{ran: true, ToolOutcome: ToolOutcome{Content: InputErrorResult, IsError: true}}
	}
	if r.cfg.Tools == nil {
		return toolOutcome{ran: true, err: fmt.Errorf("no tools are configured; %q cannot run", c.Name)}
	}
	var o ToolOutcome
	var err error
	if gerr := guard("tool", func() { o, err = r.cfg.Tools.Run(ctx, c) }); gerr != nil {
		if pe, ok := gerr.(*PanicError); ok {
			pe.Where = fmt.Sprintf("tool %q", c.Name)
		}
		return toolOutcome{ran: true, err: gerr}
	}
	if err != nil && ctx.Err() != nil {
		return toolOutcome{}
	}
	if serr := checkSize("tokens", o.Tokens); serr != nil {
		return toolOutcome{ran: true, err: fmt.Errorf("tool %q reported %w", c.Name, serr)}
	}
	return toolOutcome{ToolOutcome: o, ran: true, err: err}
}

// validInput reports whether a tool input is valid JSON (empty counts as
// {}). The last few valid inputs are remembered: agents repeat them.
func (r *run) validInput(in string) bool {
	if in == "" || in == "{}" {
		return true
	}
	for _, v := range r.validInputs {
		if v == in {
			return true
		}
	}
	if !json.Valid([]byte(in)) {
		return false
	}
	r.validInputs[r.nextValid%len(r.validInputs)] = in
	r.nextValid++
	return true
}
