package loop

import "fmt"

// applyToolResultBudget caps the total tokens of the tool results in each
// message from index from on at budget by truncating the largest results
// first. It returns the (copied where changed) messages and how many
// results it truncated.
func applyToolResultBudget(msgs []Message, from, budget int) ([]Message, int) {
	if budget <= 0 {
		return msgs, 0
	}
	out := msgs
	copied := false
	truncated := 0
	for i := from; i < len(msgs); i++ {
		m := msgs[i]
		total := 0
		for bi := range m.Blocks {
			b := &m.Blocks[bi]
			if b.Type == BlockToolResult {
				total += blockTokens(*b)
			}
		}
		if total <= budget {
			continue
		}
		blocks := append([]Block(nil), m.Blocks...)
		for total > budget {
			big := -1
			for j, b := range blocks {
				if b.Type == BlockToolResult && (big < 0 || blockTokens(b) > blockTokens(blocks[big])) {
					big = j
				}
			}
			over := total - budget
			size := blockTokens(blocks[big])
			keep := max(size-over, clearedTokens)
			if keep >= size {
				break
			}
			blocks[big].Text = fmt.Sprintf("[tool result truncated to %d of %d tokens]", keep, size)
			blocks[big].Tokens = keep
			total -= size - keep
			truncated++
		}
		if !copied {
			out = append([]Message(nil), msgs...)
			copied = true
		}
		m.Blocks = blocks
		m.Tokens = 0 // re-estimated by the loop
		out[i] = m
	}
	return out, truncated
}
