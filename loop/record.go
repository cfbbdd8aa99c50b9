package loop

import "slices"

// StateRecord is the state the loop carries out of an iteration: the ten
// fields of docs/spec.md §1, recorded at the end of every iteration (after its
// transition, or just before its terminal). Messages are recorded as IDs
// and sizes, as a change from the previous record (the first record lists
// the whole history), so a record costs what the iteration changed, not
// the length of the history.
type StateRecord struct {
	TurnCount                    int        `json:"turn_count"`
	Transition                   Transition `json:"transition,omitempty"`
	MaxOutputTokensRecoveryCount int        `json:"max_output_tokens_recovery_count"`
	HasAttemptedReactiveCompact  bool       `json:"has_attempted_reactive_compact"`
	// MaxOutputTokensOverride is zero when unset.
	MaxOutputTokensOverride int  `json:"max_output_tokens_override,omitempty"`
	StopHookActive          bool `json:"stop_hook_active"`
	// AutoCompactTracking is nil until an auto-compact ran (or failed).
	AutoCompactTracking *AutoCompactTracking `json:"auto_compact_tracking,omitempty"`
	// PendingToolUseSummary is nil when no summary is pending.
	PendingToolUseSummary *PendingRecord `json:"pending_tool_use_summary,omitempty"`
	ToolUseContext        ToolUseContext `json:"tool_use_context"`
	Messages              MessagesRecord `json:"messages"`
}

// PendingRecord names the tool batch whose summary is being produced.
type PendingRecord struct {
	// Batch are the tool_use IDs of the batch.
	Batch []string `json:"batch"`
}

// MessagesRecord is the history at the end of an iteration: its length and
// size, and how it differs from the history of the previous record.
type MessagesRecord struct {
	Count  int `json:"count"`
	Tokens int `json:"tokens"`
	// Added are the messages not in the previous record, in history order.
	Added []MessageRef `json:"added,omitempty"`
	// Removed are the IDs of the previous record's messages that left.
	Removed []string `json:"removed,omitempty"`
	// Resized are messages kept whose size changed (microcompact, the
	// tool-result budget), with the new size.
	Resized []MessageRef `json:"resized,omitempty"`
}

// MessageRef is one message by ID and size.
type MessageRef struct {
	ID     string `json:"id"`
	Tokens int    `json:"tokens"`
}

// EventKind implements [Event].
func (StateRecord) EventKind() EventKind { return KindState }

// recorder remembers the history of the last state record.
type recorder struct {
	refs []MessageRef
	// first is the address of the first message of the last recorded
	// history: while it and the last ID match and nothing was edited in
	// place, the new history extends the recorded one.
	first *Message
	// edited is set when a stage changed messages in place since the
	// last record: those of the list whose first element is editFirst,
	// from position editFrom on.
	edited    bool
	editFirst *Message
	editFrom  int
	tokens    int
	// resized is where diff lists the messages resized before they are
	// cut from the run's chunks (reused from record to record).
	resized []MessageRef
}

// edit notes that msgs[from:] may have changed in place.
func (c *recorder) edit(msgs []Message, from int) {
	var first *Message
	if len(msgs) > 0 {
		first = &msgs[0]
	}
	if c.edited {
		if first != c.editFirst {
			from = 0
		}
		from = min(from, c.editFrom)
	}
	c.edited, c.editFirst, c.editFrom = true, first, from
}

// recordState emits the state record of s. None is made when nothing
// keeps or sees the trace.
func (r *run) recordState(s *State) {
	if !r.listening() {
		return
	}
	ev := StateRecord{
		TurnCount: s.TurnCount, Transition: s.Transition, MaxOutputTokensRecoveryCount: s.MaxOutputTokensRecoveryCount,
		HasAttemptedReactiveCompact: s.HasAttemptedReactiveCompact, MaxOutputTokensOverride: s.MaxOutputTokensOverride,
		StopHookActive: s.StopHookActive, ToolUseContext: s.ToolUseContext,
	}
	if t := s.AutoCompactTracking; t != nil {
		c := *t
		ev.AutoCompactTracking = &c
	}
	if p := s.PendingToolUseSummary; p != nil {
		ev.PendingToolUseSummary = &PendingRecord{Batch: p.batch}
	}
	ev.Messages = r.rec.diff(s.Messages, &r.refLists)
	emit(r, ev)
}

// diff records h and returns how it differs from the last recorded
// history. The common case costs what was appended: the history grew in
// place. After an in-place edit (microcompact, the tool-result budget)
// the kept messages are compared by position, without allocating, from
// the first position edited when the edit was to the same list; only a
// history that lost or reordered messages is rebuilt.
func (c *recorder) diff(h []Message, refLists *chunks[MessageRef]) MessagesRecord {
	n := len(c.refs)
	var out MessagesRecord
	k := 0
	grown := n > 0 && len(h) >= n && &h[0] == c.first && h[n-1].ID == c.refs[n-1].ID
	if grown && !c.edited {
		k = n
	} else {
		if grown && c.editFirst == c.first {
			k = min(c.editFrom, n)
		}
		c.resized = c.resized[:0]
		for ; k < n && k < len(h) && h[k].ID == c.refs[k].ID; k++ {
			if h[k].Tokens != c.refs[k].Tokens {
				c.tokens += h[k].Tokens - c.refs[k].Tokens
				c.refs[k].Tokens = h[k].Tokens
				c.resized = append(c.resized, c.refs[k])
			}
		}
		if len(c.resized) > 0 {
			out.Resized = refLists.clone(c.resized)
		}
	}
	if k == n {
		// the recorded history is a prefix of h: only appends are new
		if len(c.refs)+len(h)-n > cap(c.refs) {
			// doubling, as the history grows
			c.refs = slices.Grow(c.refs, max(len(c.refs), len(h)-n, 16))
		}
		for i := n; i < len(h); i++ {
			c.refs = append(c.refs, MessageRef{ID: h[i].ID, Tokens: h[i].Tokens})
			c.tokens += h[i].Tokens
		}
		if len(h) > n {
			out.Added = refLists.clone(c.refs[n:])
		}
	} else {
		c.rebuild(h, k, &out)
	}
	c.edited, c.editFirst, c.editFrom = false, nil, 0
	c.first = nil
	if len(h) > 0 {
		c.first = &h[0]
	}
	out.Count, out.Tokens = len(h), c.tokens
	return out
}

// rebuild records h when it is not an extension of the recorded history
// past position k: compaction, snip, collapse, a dropped boundary.
func (c *recorder) rebuild(h []Message, k int, out *MessagesRecord) {
	old := make(map[string]int, len(c.refs)-k)
	for _, x := range c.refs[k:] {
		old[x.ID] = x.Tokens
	}
	refs := make([]MessageRef, len(h))
	tokens := 0
	for i, m := range h {
		refs[i] = MessageRef{ID: m.ID, Tokens: m.Tokens}
		tokens += m.Tokens
		if i < k {
			continue
		}
		t, ok := old[m.ID]
		switch {
		case !ok:
			out.Added = append(out.Added, refs[i])
		case t != m.Tokens:
			out.Resized = append(out.Resized, refs[i])
		}
		delete(old, m.ID)
	}
	for _, x := range c.refs[k:] {
		if _, ok := old[x.ID]; ok {
			out.Removed = append(out.Removed, x.ID)
		}
	}
	c.refs, c.tokens = refs, tokens
}
