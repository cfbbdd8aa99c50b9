package wire_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
)

// Events are written as the APIs write them: an event line when named,
// a data line, a blank line; raw data as it is.
func TestStreamEvents(t *testing.T) {
	rr := httptest.NewRecorder()
	s := wire.NewStream(rr, httptest.NewRequest(http.MethodPost, "/", nil), 0)
	s.Event("ping", map[string]string{"type": "ping"})
	s.Event("", map[string]int{"n": 1})
	s.Data("[DONE]")
	s.Flush()
	require.NoError(t, s.Err())
	assert.Equal(t, "event: ping\ndata: {\"type\":\"ping\"}\n\ndata: {\"n\":1}\n\ndata: [DONE]\n\n", rr.Body.String())
	assert.True(t, rr.Flushed, "Flush reaches the client")
}

// A value that cannot be encoded is the stream's error, and nothing is
// written after it.
func TestStreamEventThatCannotBeEncoded(t *testing.T) {
	rr := httptest.NewRecorder()
	s := wire.NewStream(rr, httptest.NewRequest(http.MethodPost, "/", nil), 0)
	s.Event("a", map[string]any{"f": func() {}})
	require.Error(t, s.Err())
	first := s.Err()
	s.Event("b", map[string]any{"c": make(chan int)})
	assert.Same(t, first, s.Err(), "the first failure is kept")
	s.Event("b", 1)
	s.Data("x")
	s.Flush()
	assert.Empty(t, rr.Body.String())
}

// A slow stream waits before every event but the first, and stops at
// the first wait the client does not stay for.
func TestStreamDelay(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rr := httptest.NewRecorder()
	s := wire.NewStream(rr, httptest.NewRequest(http.MethodPost, "/", nil).WithContext(ctx), time.Hour)
	s.Event("first", 1)
	require.NoError(t, s.Err(), "the first event does not wait")
	s.Event("second", 2)
	assert.ErrorIs(t, s.Err(), context.Canceled)
	s.Event("third", 3)
	assert.Equal(t, "event: first\ndata: 1\n\n", rr.Body.String(), "what was written before the wait was flushed")

	rr = httptest.NewRecorder()
	s = wire.NewStream(rr, httptest.NewRequest(http.MethodPost, "/", nil), 30*time.Millisecond)
	began := time.Now()
	s.Event("a", 1)
	s.Event("b", 2)
	s.Event("c", 3)
	s.Flush()
	require.NoError(t, s.Err())
	assert.GreaterOrEqual(t, time.Since(began), 60*time.Millisecond)
	assert.Equal(t, 3, strings.Count(rr.Body.String(), "data: "))

	// without a delay a gone client is found at the next write, not before
	rr = httptest.NewRecorder()
	s = wire.NewStream(rr, httptest.NewRequest(http.MethodPost, "/", nil).WithContext(ctx), 0)
	s.Event("a", 1)
	s.Event("b", 2)
	s.Flush()
	require.NoError(t, s.Err())
	assert.Equal(t, 2, strings.Count(rr.Body.String(), "data: "))
}

// failingWriter is a client that went away: every write fails.
type failingWriter struct {
	http.ResponseWriter
	writes int
}

var errGone = errors.New("client gone")

func (f *failingWriter) Write(b []byte) (int, error) {
	f.writes++
	return 0, errGone
}

// A write that fails (the client went away) is the stream's error, and
// nothing more is written.
func TestStreamWriteFailure(t *testing.T) {
	fw := &failingWriter{ResponseWriter: httptest.NewRecorder()}
	s := wire.NewStream(fw, httptest.NewRequest(http.MethodPost, "/", nil), 0)
	s.Event("a", 1)
	require.NoError(t, s.Err(), "buffered: nothing failed yet")
	s.Flush()
	assert.ErrorIs(t, s.Err(), errGone)
	s.Flush()
	s.Event("b", strings.Repeat("x", 10_000))
	assert.Equal(t, 1, fw.writes, "nothing is written after the failure")

	fw = &failingWriter{ResponseWriter: httptest.NewRecorder()}
	s = wire.NewStream(fw, httptest.NewRequest(http.MethodPost, "/", nil), 0)
	s.Event("big", strings.Repeat("x", 10_000))
	assert.ErrorIs(t, s.Err(), errGone, "an event larger than the buffer fails as it is written")
}

// A writer that cannot flush (no http.Flusher) is an error at Flush.
func TestStreamFlushWithoutAFlusher(t *testing.T) {
	w := struct{ http.ResponseWriter }{httptest.NewRecorder()}
	s := wire.NewStream(w, httptest.NewRequest(http.MethodPost, "/", nil), 0)
	s.Event("a", 1)
	s.Flush()
	assert.ErrorIs(t, s.Err(), http.ErrNotSupported)
}
