package fakeapi_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
)

// reply is a reply of a few hundred bytes with a tool call: about twenty
// events streamed.
var reply = fakemodel.Step{Thinking: "Let me look.", Text: strings.Repeat("The test fails because... ", 12),
	ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"path":"loop/loop.go"}`}}, Repeat: fakemodel.Forever}

// lingering is net/http's own goroutine that waits half a second before
// closing a connection whose request body was not read (a 413): it ends
// by itself.
var lingering = goleak.IgnoreAnyFunction("net/http.(*conn).closeWriteAndWait")

// sequentialRequests is how many requests TestManyRequestsInARow sends
// per API: LOOPSIM_LOAD_REQUESTS when set (10000 for the figure
// docs/agents.md gives), else 2,000, and 500 with -short or the race detector.
func sequentialRequests(t *testing.T) int {
	if v := os.Getenv("LOOPSIM_LOAD_REQUESTS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "LOOPSIM_LOAD_REQUESTS")
		return n
	}
	if testing.Short() || raceEnabled {
		return 500
	}
	return 2_000
}

func TestSixtyFourConcurrentStreamsAndClientsThatLeave(t *testing.T) {
	eachAPI(t, func(t *testing.T, api wire.API, s sample) {
		defer goleak.VerifyNone(t, lingering)
		// streams of about 400 ms: the leavers leave mid-stream
		srv := wire.NewServer(&fakemodel.Model{Script: []fakemodel.Step{reply}}, wire.Options{EventDelay: 20 * time.Millisecond}, api)
		c := client()
		var wg sync.WaitGroup
		errs := make([]error, 64)
		for i := range 64 {
			wg.Go(func() {
				if i%4 != 3 {
					errs[i] = stream(context.Background(), c, srv.URL, s)
					return
				}
				// a quarter leave mid-stream: after the first bytes
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				resp, err := c.Do(mustRequest(t, ctx, srv.URL, s))
				if err != nil {
					errs[i] = err
					return
				}
				_, errs[i] = resp.Body.Read(make([]byte, 64))
				cancel()
				resp.Body.Close()
			})
		}
		wg.Wait()
		for i, err := range errs {
			assert.NoError(t, err, "client %d", i)
		}
		c.CloseIdleConnections()
		srv.Close()
		rec := srv.Requests()
		require.Len(t, rec, 64)
		gone := 0
		for _, r := range rec {
			assert.Equal(t, api.Name(), r.API)
			if r.ClientGone {
				gone++
			}
		}
		// A client that leaves after the last event was written is not
		// gone: on a loaded machine a few may.
		assert.Positive(t, gone, "the clients that left are recorded as gone")
		assert.LessOrEqual(t, gone, 16, "only the clients that left")
	})
}

func TestManyRequestsInARowLeakNothing(t *testing.T) {
	n := sequentialRequests(t)
	eachAPI(t, func(t *testing.T, api wire.API, s sample) {
		defer goleak.VerifyNone(t, lingering)
		srv := wire.NewServer(&fakemodel.Model{Script: []fakemodel.Step{reply}}, wire.Options{}, api)
		c := client()
		heap := func() uint64 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return m.HeapAlloc
		}
		var base uint64
		goroutines := 0
		began := time.Now()
		for i := range n {
			require.NoError(t, stream(context.Background(), c, srv.URL, s), "request %d", i+1)
			if i == n/10 {
				base, goroutines = heap(), runtime.NumGoroutine()
			}
		}
		elapsed := time.Since(began)
		grown := int64(heap()) - int64(base)
		perRequest := grown / int64(n-n/10)
		t.Logf("%d requests in %s (%.0f/s); heap grew %d bytes over the last %d (%d per request: the records); goroutines %d -> %d",
			n, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), grown, n-n/10, perRequest, goroutines, runtime.NumGoroutine())
		assert.Less(t, perRequest, int64(2048), "only the records grow")
		assert.LessOrEqual(t, runtime.NumGoroutine(), goroutines+2)
		c.CloseIdleConnections()
		srv.Close()
		assert.Len(t, srv.Requests(), n)
	})
}

// BenchmarkStreamingRequests is requests per second, each a streamed
// reply of about twenty events read to its end, from 8 clients at once,
// per API.
func BenchmarkStreamingRequests(b *testing.B) {
	for _, api := range fakeapi.APIs() {
		s, ok := samples[api.Name()]
		if !ok {
			b.Fatalf("no sample for the %s API", api.Name())
		}
		b.Run(api.Name(), func(b *testing.B) {
			srv := wire.NewServer(&fakemodel.Model{Script: []fakemodel.Step{reply}}, wire.Options{}, api)
			defer srv.Close()
			c := client()
			defer c.CloseIdleConnections()
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := stream(context.Background(), c, srv.URL, s); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}

func TestCloseWhileStreaming(t *testing.T) {
	eachAPI(t, func(t *testing.T, api wire.API, s sample) {
		defer goleak.VerifyNone(t, lingering)
		srv := wire.NewServer(&fakemodel.Model{Script: []fakemodel.Step{reply}}, wire.Options{EventDelay: time.Second}, api)
		c := client()
		defer c.CloseIdleConnections()
		resp, err := c.Do(mustRequest(t, context.Background(), srv.URL, s))
		require.NoError(t, err)
		defer resp.Body.Close()
		began := time.Now()
		srv.Close()
		assert.Less(t, time.Since(began), 5*time.Second, "Close does not wait for a slow stream to end")
		_, err = readAll(resp)
		assert.Error(t, err, "the client sees the stream cut")
		_, err = c.Do(mustRequest(t, context.Background(), srv.URL, s))
		assert.Error(t, err, "nothing listens after Close")
	})
}
