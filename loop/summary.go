package loop

import "context"

// ToolUseSummarizer produces a short summary of a finished tool batch. The
// loop runs it in the background and emits the summary during the next
// iteration.
type ToolUseSummarizer interface {
	Summarize(ctx context.Context, calls []ToolCall, results []Message) (string, error)
}

// PendingSummary is a summary being produced in the background.
type PendingSummary struct {
	// batch are the tool_use IDs of the batch summarised.
	batch []string
	done  chan struct{}
	text  string
	err   error
}

func startSummary(ctx context.Context, s ToolUseSummarizer, batch []string, calls []ToolCall, results []Message) *PendingSummary {
	p := &PendingSummary{batch: batch, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer func() {
			if r := recover(); r != nil {
				p.err = panicError("tool-use summarizer", r)
			}
		}()
		p.text, p.err = s.Summarize(ctx, calls, results)
	}()
	return p
}

// settle waits for a pending summary the run will not emit (it ends),
// records it as unsent and drops it, so no goroutine outlives the run and
// no summary vanishes without an event. The event names the batch but
// not the summary's text or error: when the run ends on an abort, the
// summarizer races the cancellation, and the trace must not depend on
// which wins.
func (r *run) settle(s *State) {
	if p := s.PendingToolUseSummary; p != nil {
		p.wait()
		emit(r, ToolSummary{Batch: p.batch, Unsent: true})
		s.PendingToolUseSummary = nil
	}
}

// emitSummary emits the pending summary of the previous iteration (docs/spec.md
// §2.4).
func (r *run) emitSummary(s *State) {
	if p := s.PendingToolUseSummary; p != nil {
		text, err := p.wait()
		ev := ToolSummary{Text: text, Batch: p.batch}
		if err != nil {
			ev.Error = err.Error()
		}
		emit(r, ev)
		s.PendingToolUseSummary = nil
	}
}

// wait blocks until the summary is ready.
func (p *PendingSummary) wait() (string, error) {
	<-p.done
	return p.text, p.err
}
