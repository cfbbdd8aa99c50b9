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
	done chan struct{}
	text string
	err  error
}

func startSummary(ctx context.Context, s ToolUseSummarizer, calls []ToolCall, results []Message) *PendingSummary {
	p := &PendingSummary{done: make(chan struct{})}
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

// settle waits for a pending summary the run will not emit (it ends) and
// drops it, so no goroutine outlives the run.
func (s *State) settle() {
	if s.PendingToolUseSummary != nil {
		s.PendingToolUseSummary.wait()
		s.PendingToolUseSummary = nil
	}
}

// wait blocks until the summary is ready.
func (p *PendingSummary) wait() (string, error) {
	<-p.done
	return p.text, p.err
}
