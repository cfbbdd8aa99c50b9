package fakemodel

// cursor walks a list of outcomes: each is used Times times (at least
// once) before the next, and the last one repeats for ever.
type cursor struct {
	pos  int // index of the outcome answering the next call
	used int // calls the outcome at pos has answered so far
}

// next returns the index of the outcome for this call, given the list's
// length n (at least 1) and the Times of each outcome.
func (c *cursor) next(n int, times func(i int) int) int {
	i := min(c.pos, n-1)
	c.used++
	if c.used >= max(times(i), 1) && c.pos < n-1 {
		c.pos++
		c.used = 0
	}
	return i
}
