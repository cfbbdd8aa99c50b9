package loop

// chunks hands out short lists cut from larger chunks, so that the many
// small lists a run keeps (a reply's blocks, a batch's results, a
// response's tool_use IDs) cost an allocation per chunk rather than one
// per list. A list is cut with its capacity equal to its length:
// appending to it copies it, never writing into the next list. Chunks
// start small, so a short run allocates little, and double up to
// maxChunk elements.
type chunks[T any] struct {
	free []T
	size int
	// spared is the capacity of the last list spare returned.
	spared int
}

// maxChunk is the largest chunk, in elements.
const maxChunk = 256

// cut returns a list of n zero elements.
func (c *chunks[T]) cut(n int) []T {
	if n > len(c.free) {
		c.size = min(max(2*c.size, 8), maxChunk)
		c.free = make([]T, max(c.size, n))
	}
	s := c.free[:n:n]
	c.free = c.free[n:]
	return s
}

// spare returns an empty list of capacity n to append to in place, at
// the chunk's free end (a new chunk when fewer than n elements are left).
// [chunks.keep] takes what was appended; nothing else may be cut in
// between.
func (c *chunks[T]) spare(n int) []T {
	if n > len(c.free) {
		c.size = min(max(2*c.size, 8), maxChunk)
		c.free = make([]T, max(c.size, n))
	}
	c.spared = n
	return c.free[:0:n]
}

// keep returns xs, the list [chunks.spare] returned with elements
// appended, with its capacity equal to its length: cut from the chunk
// where it stayed there, or xs itself where append moved it (the spare
// room it wrote over first is then skipped); an empty list for an empty
// xs.
func (c *chunks[T]) keep(xs []T) []T {
	n := c.spared
	c.spared = 0
	switch {
	case len(xs) == 0:
		return []T{}
	case &xs[0] == &c.free[0]:
		return c.cut(len(xs))
	}
	c.free = c.free[n:]
	return xs[:len(xs):len(xs)]
}

// clone returns a copy of xs; an empty list for an empty xs.
func (c *chunks[T]) clone(xs []T) []T {
	if len(xs) == 0 {
		return []T{}
	}
	s := c.cut(len(xs))
	copy(s, xs)
	return s
}

// grow returns h with room for n more messages, doubling the backing
// array when it is full: append grows a long slice by a quarter at a
// time, which copies each message of a long history several times over.
func grow(h []Message, n int) []Message {
	if len(h)+n <= cap(h) {
		return h
	}
	g := make([]Message, len(h), max(2*cap(h), len(h)+n))
	copy(g, h)
	return g
}
