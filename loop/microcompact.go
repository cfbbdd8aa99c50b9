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
		m := in.Messages[i]
		changed := false
		var blocks []Block
		for j := len(m.Blocks) - 1; j >= 0; j-- {
			b := m.Blocks[j]
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
		m.Blocks = blocks
		m.Tokens = 0 // re-estimated by the loop
		res.Messages[i] = m
	}
	return res
}
