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
