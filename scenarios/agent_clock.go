package scenarios

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/loopsim/loopsim/loop"
)

// ModelCall is one answer the server's model gave a foreign agent, timed
// on the server's clock (from the server's start): when the request
// reached the model and when its answer was played out. Requests the
// wire refused before reaching the model have none.
type ModelCall struct {
	// Start and End are when the model was called and when it returned.
	Start, End time.Duration
	// Status is the HTTP status of a failed answer; zero for an answer.
	Status int
	// RetryAfterMS is the retry-after the answer carried, if any.
	RetryAfterMS int
}

// timedModel times each call of the model it wraps.
type timedModel struct {
	next  loop.Model
	began time.Time
	mu    sync.Mutex
	calls []ModelCall
}

func newTimedModel(next loop.Model) *timedModel {
	return &timedModel{next: next, began: time.Now()}
}

// Stream implements loop.Model.
func (m *timedModel) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	start := time.Since(m.began)
	resp, err := m.next.Stream(ctx, req, yield)
	c := ModelCall{Start: start, End: time.Since(m.began)}
	var re *loop.RequestError
	if errors.As(err, &re) {
		c.Status, c.RetryAfterMS = re.Status, re.RetryAfterMS
	}
	m.mu.Lock()
	m.calls = append(m.calls, c)
	m.mu.Unlock()
	return resp, err
}

// Calls are the calls so far, in the order they ended.
func (m *timedModel) Calls() []ModelCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]ModelCall(nil), m.calls...)
}
