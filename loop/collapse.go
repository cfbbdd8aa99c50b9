package loop

import "fmt"

// CollapseInput is what context collapse sees.
type CollapseInput struct {
	// Messages are the messages after the last compact boundary.
	Messages []Message
	// Tokens is their count.
	Tokens int
	// Staged are the spans staged so far.
	Staged []Span
	// StageAt: spans are staged once Tokens reaches it.
	StageAt int
	// CommitAt: staged spans are committed once Tokens reaches it.
	CommitAt int
	// KeepRecent is how many of the newest messages are never folded.
	KeepRecent int
}

// CollapseResult is what collapse did.
type CollapseResult struct {
	// Messages is the projected list.
	Messages []Message
	// Staged are the spans still staged.
	Staged []Span
	// Committed counts the spans folded now.
	Committed int
	// Removed are the IDs of the messages folded now.
	Removed []string
}

// Collapser is the context-collapse seam: a read-time projection that
// folds staged ranges of old messages into summaries.
type Collapser interface {
	// Collapse stages and commits as the thresholds say.
	Collapse(in CollapseInput) CollapseResult
	// Drain commits everything staged (the prompt-too-long recovery).
	Drain(in CollapseInput) CollapseResult
}

// SpanCollapser stages the oldest foldable exchanges as one span when the
// count reaches StageAt, and folds staged spans into a one-message summary
// a tenth of their size when it reaches CommitAt or on drain.
type SpanCollapser struct{}

// Collapse implements [Collapser].
func (c SpanCollapser) Collapse(in CollapseInput) CollapseResult {
	res := CollapseResult{Messages: in.Messages, Staged: in.Staged}
	if in.Tokens >= in.CommitAt && len(in.Staged) > 0 {
		res = c.Drain(in)
	}
	if in.Tokens >= in.StageAt {
		if s, ok := nextSpan(res.Messages, res.Staged, in.KeepRecent); ok {
			res.Staged = append(append([]Span(nil), res.Staged...), s)
		}
	}
	return res
}

// Drain implements [Collapser].
func (SpanCollapser) Drain(in CollapseInput) CollapseResult {
	res := CollapseResult{Messages: in.Messages}
	for _, s := range in.Staged {
		first, last := indexOf(res.Messages, s.First), indexOf(res.Messages, s.Last)
		if first < 0 || last < first {
			continue
		}
		folded := res.Messages[first : last+1]
		sum := Message{ID: "collapse:" + s.First + ".." + s.Last, Role: RoleUser, Meta: true, Synthetic: true,
			Blocks: []Block{{Type: BlockText, Text: fmt.Sprintf("[collapsed %d messages: %s..%s]", len(folded), s.First, s.Last)}}}
		sum.Tokens = max(1, SumTokens(folded)/10)
		for _, m := range folded {
			res.Removed = append(res.Removed, m.ID)
		}
		out := make([]Message, 0, len(res.Messages)-len(folded)+1)
		out = append(out, res.Messages[:first]...)
		out = append(out, sum)
		out = append(out, res.Messages[last+1:]...)
		res.Messages = out
		res.Committed++
	}
	return res
}

// nextSpan picks the oldest run of whole exchanges after the newest
// staged span, up to the newest keepRecent messages: the older half of
// what is foldable, at least two messages.
func nextSpan(msgs []Message, staged []Span, keepRecent int) (Span, bool) {
	from := 0
	if len(staged) > 0 {
		// spans are staged oldest first, so the newest one bounds them all
		if i := indexOf(msgs, staged[len(staged)-1].Last); i >= 0 {
			from = i + 1
		}
	}
	limit := len(msgs) - keepRecent
	var starts []int
	for _, s := range Exchanges(msgs) {
		if s > from && s <= limit {
			starts = append(starts, s)
		}
	}
	if len(starts) == 0 || starts[len(starts)-1]-from < 2 {
		return Span{}, false
	}
	end := starts[len(starts)-1]
	half := end
	for _, s := range starts {
		if s-from >= (end-from)/2 {
			half = s
			break
		}
	}
	if half-from < 2 {
		half = end
	}
	return Span{First: msgs[from].ID, Last: msgs[half-1].ID}, true
}

func indexOf(msgs []Message, id string) int {
	for i, m := range msgs {
		if m.ID == id {
			return i
		}
	}
	return -1
}
