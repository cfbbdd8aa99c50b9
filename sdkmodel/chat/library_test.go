package chat_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/scenarios"
	"github.com/loopsim/loopsim/sdkmodel/chat"
)

// overTheWire runs a scenario with the loop calling this package's
// Model, pointed at the fake server (Chat Completions) answering from the
// scenario's script.
func overTheWire(ctx context.Context, s *scenarios.Scenario) (*scenarios.Outcome, error) {
	return scenarios.RunVia(ctx, s, func(script loop.Model, cancel context.CancelFunc) (scenarios.Via, error) {
		counted := &countingModel{}
		var srv *wire.Server
		// The user presses escape once the blocks before the abort have
		// reached the loop, as in-process.
		onAbort := func() {
			recs := srv.Requests()
			counted.waitFor(recs[len(recs)-1].Blocks)
			cancel()
		}
		srv, err := fakeapi.Start(script, wire.Options{OnAbort: onAbort})
		if err != nil {
			return scenarios.Via{}, err
		}
		m, err := chat.New(chat.Config{BaseURL: srv.URL + "/v1", APIKey: "loopsim-test", SendInputTokens: true})
		if err != nil {
			srv.Close()
			return scenarios.Via{}, err
		}
		counted.Model = m
		return scenarios.Via{Model: counted, Abort: srv.Abort, Close: srv.Close}, nil
	})
}

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

// wireLimits are the scenarios whose traces differ over the Chat
// Completions wire, and why: each plays something the wire cannot
// carry. All six differ over the Messages API's wire too (sdkmodel's
// list).
var wireLimits = map[string]string{
	// image_size is a check a client makes before sending; over the wire
	// it can only be the API's 400 rejecting the image (media_too_large).
	"cc-image-error":   "image_size arrives as a 400 media_too_large",
	"seed-image-error": "image_size arrives as a 400 media_too_large",
	// fallback_triggered is the in-process shortcut for the retry layer's
	// decision to switch models; over the wire it is one 503
	// server_overloaded (overloaded), which the loop counts toward its
	// own fallback rule, or, after streamed blocks, an error data line
	// (stream_error).
	"seed-fallback-model":                    "fallback_triggered arrives as a 503 overloaded",
	"seed-fallback-with-tool-uses-in-flight": "fallback_triggered after blocks arrives as an error data line",
	// thrown is a failure that is not an API answer (a broken client);
	// the server can only answer it with a 500.
	"seed-model-error": "thrown arrives as a 500 server_error",
	// The run ends on dropped connections: the error it ends with is the
	// HTTP client's message, so the error message the loop appends (and
	// its size) differ.
	"cc-drops-never-go-non-streaming": "ends on a dropped connection: the HTTP client's message",
}

// Every scenario of the library gives the same trace when the loop
// calls the fake server through openai-go's Chat Completions client as
// when it calls the scripted model in-process, but for the differences
// the wire forces (traceLines and wireLimits say which).
func TestLibraryOverTheWire(t *testing.T) {
	lib, err := scenarios.Library()
	require.NoError(t, err)
	for _, s := range lib {
		t.Run(s.Name, func(t *testing.T) {
			if s.Skip != "" {
				t.Skip(s.Skip)
			}
			in, err := scenarios.Run(t.Context(), s)
			require.NoError(t, err)
			wire, err := overTheWire(t.Context(), s)
			require.NoError(t, err)
			diff := cmp.Diff(traceLines(t, in.Result.Trace), traceLines(t, wire.Result.Trace))
			if why, ok := wireLimits[s.Name]; ok {
				assert.NotEmpty(t, diff, "listed as differing over the wire (%s), but the traces are equal: drop it from wireLimits", why)
				return
			}
			assert.Empty(t, diff, "trace in-process (-) vs over the wire (+)")
			assert.Equal(t, in.Got, wire.Got)
		})
	}
}

// traceLines is the trace as JSON Lines, normalized where the wire
// cannot be exact: a dropped connection's message is the HTTP client's,
// not the script's.
func traceLines(t *testing.T, tr loop.Trace) []string {
	t.Helper()
	norm := make(loop.Trace, len(tr))
	for i, e := range tr {
		if f, ok := e.(loop.RequestFailed); ok && f.Kind == loop.KindConnection {
			f.Message = "(connection dropped)"
			e = f
		}
		norm[i] = e
	}
	var b bytes.Buffer
	require.NoError(t, norm.WriteJSONL(&b))
	return strings.Split(strings.TrimSpace(b.String()), "\n")
}
