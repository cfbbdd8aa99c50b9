package gemini

import (
	"context"
	"net/http"
	"sync/atomic"
)

// statusKey is the context key under which a call keeps the status of
// its answer.
type statusKey struct{}

// withStatus returns ctx carrying status, which [statusTransport] sets
// to the HTTP status of the call's answer. The SDK reports an error
// object the same whether it came with an error status or as a chunk of
// a stream that had begun with 200: only the status tells them apart.
func withStatus(ctx context.Context, status *atomic.Int32) context.Context {
	return context.WithValue(ctx, statusKey{}, status)
}

// statusTransport is an http.RoundTripper that notes each answer's
// status in its request's context (see [withStatus]).
type statusTransport struct {
	base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *statusTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(r)
	if s, ok := r.Context().Value(statusKey{}).(*atomic.Int32); ok && resp != nil {
		s.Store(int32(resp.StatusCode))
	}
	return resp, err
}
