package wire_test

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/messages"
)

// reply is a reply of a few hundred bytes with a tool call: about twenty
// events streamed.
var reply = fakemodel.Step{Thinking: "Let me look.", Text: strings.Repeat("The test fails because... ", 12),
	ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"path":"loop/loop.go"}`}}, Repeat: fakemodel.Forever}

// lingering is net/http's own goroutine that waits half a second before
// closing a connection whose request body was not read (a 413): it ends
// by itself.
var lingering = goleak.IgnoreAnyFunction("net/http.(*conn).closeWriteAndWait")

func client() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
}

// stream sends one streaming request and reads it to the end.
func stream(c *http.Client, url string, raw string) error {
	resp, err := c.Post(url+"/v1/messages", "application/json", strings.NewReader(raw))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 || !strings.HasSuffix(string(b), "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n") {
		return &badStream{resp.StatusCode}
	}
	return nil
}

type badStream struct{ status int }

func (e *badStream) Error() string {
	return "stream did not end with message_stop, status " + http.StatusText(e.status)
}

func TestSixtyFourConcurrentStreamsAndClientsThatLeave(t *testing.T) {
	defer goleak.VerifyNone(t, lingering)
	srv := wire.NewServer(&fakemodel.Model{Script: []fakemodel.Step{reply}},
		wire.Options{EventDelay: 20 * time.Millisecond}, messages.API{}) // streams of about 400 ms: the leavers leave mid-stream
	c := client()
	raw := mustJSON(t, request(true, userText("go")))
	var wg sync.WaitGroup
	errs := make([]error, 64)
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%4 == 3 { // a quarter leave mid-stream
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(raw))
				resp, err := c.Do(req)
				if err != nil {
					errs[i] = err
					return
				}
				_, errs[i] = resp.Body.Read(make([]byte, 64))
				cancel()
				resp.Body.Close()
				return
			}
			errs[i] = stream(c, srv.URL, raw)
		}()
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
		if r.ClientGone {
			gone++
		}
	}
	// A client that leaves after the last event was written is not gone:
	// on a loaded machine a few may.
	assert.Positive(t, gone, "the clients that left are recorded as gone")
	assert.LessOrEqual(t, gone, 16, "only the clients that left")
}

func TestTenThousandRequestsInARowLeakNothing(t *testing.T) {
	defer goleak.VerifyNone(t, lingering)
	n := 10_000
	if testing.Short() || raceEnabled {
		n = 1_000 // the race detector slows each request tenfold
	}
	srv := wire.NewServer(&fakemodel.Model{Script: []fakemodel.Step{reply}}, wire.Options{}, messages.API{})
	c := client()
	raw := mustJSON(t, request(true, userText("go")))
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var base uint64
	goroutines := 0
	for i := range n {
		require.NoError(t, stream(c, srv.URL, raw), "request %d", i+1)
		if i == n/10 {
			base, goroutines = heap(), runtime.NumGoroutine()
		}
	}
	grown := int64(heap()) - int64(base)
	perRequest := grown / int64(n-n/10)
	t.Logf("heap grew %d bytes over %d requests (%d per request: the records); goroutines %d -> %d",
		grown, n-n/10, perRequest, goroutines, runtime.NumGoroutine())
	assert.Less(t, perRequest, int64(2048), "only the records grow")
	assert.LessOrEqual(t, runtime.NumGoroutine(), goroutines+2)
	c.CloseIdleConnections()
	srv.Close()
	assert.Len(t, srv.Requests(), n)
}

func TestBadBodiesNeverCrash(t *testing.T) {
	srv, _ := serve(t, wire.Options{MaxBodyBytes: 1 << 10})
	for _, raw := range []string{"", "null", "{", `{"messages": "x"}`, `{"model": 3}`, strings.Repeat("[", 1000),
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"tool_result"}]}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{}]}]}`,
		`{"model":"m","max_tokens":1,"messages":[null]}`,
	} {
		resp := post(t, srv.URL, []byte(raw))
		assert.Equal(t, 400, resp.StatusCode, "body %.40q", raw)
		assert.Equal(t, "invalid_request_error", decodeJSON(t, resp)["error"].(map[string]any)["type"], "body %.40q", raw)
	}
	resp := post(t, srv.URL, []byte(`{"model":"`+strings.Repeat("m", 2000)+`"}`))
	assert.Equal(t, 413, resp.StatusCode)
	assert.Equal(t, "request_too_large", decodeJSON(t, resp)["error"].(map[string]any)["type"])
}

// BenchmarkStreamingRequests is requests per second, each a streamed
// reply of about twenty events read to its end, from 8 clients at once.
func BenchmarkStreamingRequests(b *testing.B) {
	srv := wire.NewServer(&fakemodel.Model{Script: []fakemodel.Step{reply}}, wire.Options{}, messages.API{})
	defer srv.Close()
	c := client()
	defer c.CloseIdleConnections()
	raw := mustJSON(b, request(true, userText("go")))
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := stream(c, srv.URL, raw); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}

func TestCloseWhileStreaming(t *testing.T) {
	defer goleak.VerifyNone(t, lingering)
	srv := wire.NewServer(&fakemodel.Model{Script: []fakemodel.Step{reply}}, wire.Options{EventDelay: time.Second}, messages.API{})
	c := client()
	defer c.CloseIdleConnections()
	resp := post(t, srv.URL, request(true, userText("go")))
	defer resp.Body.Close()
	began := time.Now()
	srv.Close()
	assert.Less(t, time.Since(began), 5*time.Second, "Close does not wait for a slow stream to end")
	_, err := io.ReadAll(resp.Body)
	assert.Error(t, err, "the client sees the stream cut")
	_, err = http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader("{}"))
	assert.Error(t, err, "nothing listens after Close")
}
