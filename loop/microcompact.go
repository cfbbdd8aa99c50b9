package loop

// MicrocompactInput is what microcompact sees.
type MicrocompactInput struct {
	Messages   []Message
	KeepRecent int
	// Owned says the caller owns Messages: entries may be replaced in
	// place instead of copying the list.
	Owned bool
	// Incremental says every tool result older than a cleared one is
	// cleared already (the previous passes cleared them), so a scan from
	// the newest message may stop at the first cleared result it meets
	// past the KeepRecent newest.
	Incremental bool
}

// MicrocompactResult is what microcompact did.
type MicrocompactResult struct {
	// Messages is the list with old tool results cleared.
	Messages []Message
	// Cleared counts the tool results replaced by the placeholder.
	Cleared int
}

// Microcompactor is the microcompact seam: replace old tool-result
// contents with a short placeholder.
type Microcompactor interface {
	Microcompact(in MicrocompactInput) MicrocompactResult
}

// ClearedToolResult is the placeholder that replaces an old tool result.
const ClearedToolResult = "[Old tool result content cleared]"

// clearedTokens is the placeholder's size.
const clearedTokens = 10

// KeepRecentMicrocompactor clears every tool result but the newest
// KeepRecent. Messages it changes are copied, with Tokens zeroed for the
// loop to re-estimate; the input list is not modified unless it is Owned.
// With Incremental it scans only back to the newest result already
// cleared, so a pass costs what changed since the last one.
type KeepRecentMicrocompactor struct{}

// Microcompact implements [Microcompactor].
func (KeepRecentMicrocompactor) Microcompact(in MicrocompactInput) MicrocompactResult {
	res := MicrocompactResult{Messages: in.Messages}
	seen := 0
	copied := in.Owned
	done := false
	for i := len(in.Messages) - 1; i >= 0 && !done; i-- {
		m := &in.Messages[i]
		changed := false
		var blocks []Block
		for j := len(m.Blocks) - 1; j >= 0; j-- {
			b := &m.Blocks[j]
			if b.Type != BlockToolResult {
				continue
			}
			seen++
			if seen <= in.KeepRecent {
				continue
			}
			if b.Text == ClearedToolResult {
				done = in.Incremental
				continue
			}
			if !changed {
				blocks = append([]Block(nil), m.Blocks...)
				changed = true
			}
			blocks[j].Text = ClearedToolResult
			blocks[j].Tokens = clearedTokens
			res.Cleared++
		}
		if !changed {
			continue
		}
		if !copied {
			res.Messages = append([]Message(nil), in.Messages...)
			copied = true
		}
		c := *m
		c.Blocks = blocks
		c.Tokens = 0 // re-estimated by the loop
		res.Messages[i] = c
	}
	return res
}

// uncleared remembers, for the history the loop microcompacted last, the
// index before which it holds no tool result left to clear, so that the
// next pass over the same history, grown by appends, starts there: a
// pass costs what was appended, not the history's length. Like
// [sizeCache] it recognises the same history by its first element and
// the ID of its last one.
type uncleared struct {
	first  *Message
	n      int
	lastID string
	index  int
}

// from is where a pass over msgs may start: the remembered index when
// msgs extends the history remembered, else 0.
func (u *uncleared) from(msgs []Message) int {
	if u.n > 0 && len(msgs) >= u.n && &msgs[0] == u.first && msgs[u.n-1].ID == u.lastID {
		return u.index
	}
	return 0
}

// remember records msgs after a pass that started at from: the index of
// its oldest tool result not yet cleared, or its length.
func (u *uncleared) remember(msgs []Message, from int) {
	if len(msgs) == 0 {
		*u = uncleared{}
		return
	}
	i := from
	for ; i < len(msgs); i++ {
		if hasUnclearedResult(&msgs[i]) {
			break
		}
	}
	*u = uncleared{first: &msgs[0], n: len(msgs), lastID: msgs[len(msgs)-1].ID, index: i}
}

func hasUnclearedResult(m *Message) bool {
	for bi := range m.Blocks {
		b := &m.Blocks[bi]
		if b.Type == BlockToolResult && b.Text != ClearedToolResult {
			return true
		}
	}
	return false
}
