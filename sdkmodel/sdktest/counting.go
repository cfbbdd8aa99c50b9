package sdktest

import (
	"context"
	"sync"
	"time"

	"github.com/loopsim/loopsim/loop"
)

// countingModel counts the blocks the current call has handed to the
// loop, so that an abort can wait for them.
type countingModel struct {
	loop.Model
	mu      sync.Mutex
	yielded int
	changed chan struct{}
}

// Stream implements loop.Model.
func (c *countingModel) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	c.mu.Lock()
	c.yielded = 0
	c.mu.Unlock()
	return c.Model.Stream(ctx, req, func(b loop.Block) {
		yield(b)
		c.mu.Lock()
		c.yielded++
		if c.changed != nil {
			close(c.changed)
			c.changed = nil
		}
		c.mu.Unlock()
	})
}

// waitFor waits until the current call has yielded n blocks, or a second
// has passed.
func (c *countingModel) waitFor(n int) {
	deadline := time.After(time.Second)
	for {
		c.mu.Lock()
		if c.yielded >= n {
			c.mu.Unlock()
			return
		}
		if c.changed == nil {
			c.changed = make(chan struct{})
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			return
		}
	}
}
