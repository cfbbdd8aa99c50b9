package loop

// sizeCache remembers the last message list the loop measured, so that
// measuring the same history again after appends costs only the appended
// messages: the history is append-only between the points where a stage
// replaces it with a new list (a new first element).
type sizeCache struct {
	first  *Message
	n      int
	lastID string
	sum    int
}

// size is SumTokens(msgs), reusing the last measurement when msgs extends
// the list measured last.
func (r *run) size(msgs []Message) int {
	c := &r.sizes
	if c.n > 0 && len(msgs) >= c.n && &msgs[0] == c.first && msgs[c.n-1].ID == c.lastID {
		c.sum += SumTokens(msgs[c.n:])
	} else {
		c.sum = SumTokens(msgs)
	}
	if len(msgs) == 0 {
		*c = sizeCache{}
		return 0
	}
	c.first, c.n, c.lastID = &msgs[0], len(msgs), msgs[len(msgs)-1].ID
	return c.sum
}
