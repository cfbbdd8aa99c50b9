package wire_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/messages"
	"github.com/loopsim/loopsim/loop"
)

// send posts b to srv's /v1/messages on a client of its own and returns
// the response (nil when the request failed) with its body read, and the
// error that ended the exchange (the request's, else the body read's).
func send(t *testing.T, url string, b any) (*http.Response, string, error) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	resp, err := hc.Post(url+"/v1/messages", "application/json", strings.NewReader(mustJSON(t, b)))
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, string(data), err
}

// errorOf reads the Messages API's error body: its error type and message.
func errorOf(t *testing.T, body string) (typ, msg string) {
	t.Helper()
	var v struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &v), body)
	require.Equal(t, "error", v.Type, body)
	return v.Error.Type, v.Error.Message
}

// A script that ran out is the harness's fault: a 500 naming it, with
// the request's id, and a record saying fault; streamed or not.
func TestAHarnessFaultIsA500(t *testing.T) {
	for _, stream := range []bool{false, true} {
		srv, _ := serve(t, wire.Options{})
		resp, body, err := send(t, srv.URL, request(stream, userText("go")))
		require.NoError(t, err)
		assert.Equal(t, 500, resp.StatusCode, "stream %v", stream)
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		assert.Equal(t, "req_loopsim_000001", resp.Header.Get("request-id"))
		typ, msg := errorOf(t, body)
		assert.Equal(t, "api_error", typ)
		assert.True(t, strings.HasPrefix(msg, "loopsim harness fault: "), msg)
		assert.Contains(t, msg, "script exhausted")
		rec := srv.Requests()
		require.Len(t, rec, 1)
		assert.Equal(t, "M:fault", rec[0].Label())
		assert.Equal(t, 500, rec[0].Status)
		assert.Equal(t, "api_error", rec[0].ErrorType)
		assert.Contains(t, rec[0].Error, "script exhausted")
		assert.Equal(t, 0, rec[0].Blocks)
	}
}

// A fault the model played on a request that did not ask for a stream
// is the API's error status and body, with its retry headers.
func TestAFaultOutsideAStreamIsAnErrorStatus(t *testing.T) {
	srv, _ := serve(t, wire.Options{}, fakemodel.Step{Kind: fakemodel.RateLimited, RetryAfterMS: 1500, Message: "slow down"})
	resp, body, err := send(t, srv.URL, request(false, userText("go")))
	require.NoError(t, err)
	assert.Equal(t, 429, resp.StatusCode)
	assert.Equal(t, "2", resp.Header.Get("retry-after"), "whole seconds, rounded up")
	assert.Equal(t, "1500", resp.Header.Get("retry-after-ms"))
	assert.Equal(t, "req_loopsim_000001", resp.Header.Get("request-id"))
	typ, msg := errorOf(t, body)
	assert.Equal(t, "rate_limit_error", typ)
	assert.Equal(t, "slow down", msg)
	rec := srv.Requests()
	require.Len(t, rec, 1)
	assert.Equal(t, "M:429", rec[0].Label())
	assert.Equal(t, 429, rec[0].Status)
	assert.Equal(t, "rate_limit_error", rec[0].ErrorType)
	assert.Equal(t, loop.KindRateLimited, rec[0].Fault)
}

// A streamed request whose fault comes before any content gets the same
// error status as a non-streaming one, not a stream.
func TestAStreamedFaultBeforeContentIsAnErrorStatus(t *testing.T) {
	srv, _ := serve(t, wire.Options{}, fakemodel.Step{Kind: fakemodel.Overloaded})
	resp, body, err := send(t, srv.URL, request(true, userText("go")))
	require.NoError(t, err)
	assert.Equal(t, 529, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	typ, _ := errorOf(t, body)
	assert.Equal(t, "overloaded_error", typ)
	rec := srv.Requests()
	assert.Equal(t, "M:529", rec[0].Label())
	assert.Equal(t, 529, rec[0].Status)
	assert.Equal(t, 0, rec[0].Blocks)
}

// A stream error after content is an error event inside a 200 stream,
// recorded as stream_error with the blocks sent.
func TestAStreamErrorAfterContentIsAnEvent(t *testing.T) {
	srv, _ := serve(t, wire.Options{}, fakemodel.Step{Kind: fakemodel.StreamError, Text: "partial", After: 1})
	resp := post(t, srv.URL, request(true, userText("go")))
	defer resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	assert.Equal(t, "no-cache", resp.Header.Get("Cache-Control"))
	assert.Equal(t, "req_loopsim_000001", resp.Header.Get("request-id"))
	events, err := readEvents(t, resp.Body)
	require.NoError(t, err)
	names := make([]string, len(events))
	for i, e := range events {
		names[i] = e.Name
	}
	assert.Equal(t, []string{"message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop", "error"}, names)
	rec := srv.Requests()
	assert.Equal(t, "M:stream_error", rec[0].Label())
	assert.Equal(t, 200, rec[0].Status)
	assert.Equal(t, 1, rec[0].Blocks)
	assert.Equal(t, "api_error", rec[0].ErrorType)
	assert.Equal(t, loop.KindStream, rec[0].Fault)
}

// A stream error on a request that did not ask for a stream is the
// API's 500.
func TestAStreamErrorWithoutAStreamIsA500(t *testing.T) {
	srv, _ := serve(t, wire.Options{}, fakemodel.Step{Kind: fakemodel.StreamError, Text: "partial", After: 1})
	resp, body, err := send(t, srv.URL, request(false, userText("go")))
	require.NoError(t, err)
	assert.Equal(t, 500, resp.StatusCode)
	typ, _ := errorOf(t, body)
	assert.Equal(t, "api_error", typ)
	rec := srv.Requests()
	assert.Equal(t, "M:500", rec[0].Label())
	assert.Equal(t, 500, rec[0].Status)
	assert.Equal(t, 0, rec[0].Blocks, "nothing of the reply was sent")
}

// A dropped connection: a client without a stream, or one before any
// content, reads no response at all; one after content reads a 200
// stream that ends without its last event.
func TestADroppedConnection(t *testing.T) {
	for _, c := range []struct {
		name   string
		stream bool
		step   fakemodel.Step
		status int // recorded; 0: no response
		blocks int
	}{
		{"without a stream", false, fakemodel.Step{Kind: fakemodel.ConnectionDropped, Text: "partial", After: 1}, 0, 0},
		{"before content", true, fakemodel.Step{Kind: fakemodel.ConnectionDropped}, 0, 0},
		{"after a block", true, fakemodel.Step{Kind: fakemodel.ConnectionDropped, Text: "partial", After: 1}, 200, 1},
		{"inside a block", true, fakemodel.Step{Kind: fakemodel.ConnectionDropped, CutText: "half a sen"}, 200, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := serve(t, wire.Options{}, c.step)
			resp, body, err := send(t, srv.URL, request(c.stream, userText("go")))
			require.Error(t, err, "the client sees the drop")
			if c.status == 0 {
				assert.Nil(t, resp, "no response before the drop")
			} else {
				require.NotNil(t, resp)
				assert.Equal(t, 200, resp.StatusCode)
				assert.Contains(t, body, "message_start")
				assert.NotContains(t, body, "message_stop")
			}
			if c.name == "inside a block" {
				assert.Contains(t, body, "half a sen")
				assert.NotContains(t, body, "content_block_stop", "the cut block is never ended")
			}
			rec := srv.Requests()
			require.Len(t, rec, 1)
			assert.Equal(t, "M:drop", rec[0].Label())
			assert.Equal(t, c.status, rec[0].Status)
			assert.Equal(t, c.blocks, rec[0].Blocks)
			assert.Equal(t, loop.KindConnection, rec[0].Fault)
			assert.Positive(t, rec[0].Done, "the end of a dropped request is recorded")
		})
	}
}

// An abort step on a request that did not ask for a stream tells the
// test, then drops the connection; OnAbort is called once.
func TestAnAbortWithoutAStream(t *testing.T) {
	var aborts atomic.Int32
	model := &fakemodel.Model{Script: []fakemodel.Step{{Kind: fakemodel.Abort}}}
	h := wire.NewHandler(model, wire.Options{OnAbort: func() { aborts.Add(1) }, AbortWait: time.Millisecond}, messages.API{})
	model.Cancel = h.Abort
	srv, err := h.Listen()
	require.NoError(t, err)
	defer srv.Close()
	resp, _, err := send(t, srv.URL, request(false, userText("go")))
	require.Error(t, err, "the connection is dropped")
	assert.Nil(t, resp)
	assert.EqualValues(t, 1, aborts.Load())
	rec := srv.Requests()
	assert.Equal(t, "M:abort", rec[0].Label())
	assert.Equal(t, 200, rec[0].Status)
	assert.Equal(t, "abort", rec[0].FaultKind())
}

// An aborted stream is held open for the client to go away for
// AbortWait (by default ten seconds), then dropped.
func TestAnAbortedStreamWaitsForTheClient(t *testing.T) {
	model := &fakemodel.Model{Script: []fakemodel.Step{{Kind: fakemodel.Abort, Text: "partial", After: 1, Repeat: 2}}}
	h := wire.NewHandler(model, wire.Options{}, messages.API{})
	model.Cancel = h.Abort
	srv, err := h.Listen()
	require.NoError(t, err)
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(mustJSON(t, request(true, userText("go")))))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	got := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(resp.Body)
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("the aborted stream ended before the client left: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	cancel()
	<-got
	require.Eventually(t, func() bool { return srv.Requests()[0].Done > 0 }, 5*time.Second, 10*time.Millisecond,
		"the server is through with the request once the client left")
	rec := srv.Requests()
	assert.Equal(t, "M:abort", rec[0].Label())
	assert.Equal(t, 1, rec[0].Blocks, "the block before the abort was sent")

	// with a short AbortWait the stream is dropped without the client
	model2 := &fakemodel.Model{Script: []fakemodel.Step{{Kind: fakemodel.Abort, Text: "partial", After: 1}}}
	h2 := wire.NewHandler(model2, wire.Options{AbortWait: 50 * time.Millisecond}, messages.API{})
	model2.Cancel = h2.Abort
	srv2, err := h2.Listen()
	require.NoError(t, err)
	defer srv2.Close()
	resp2, body, err := send(t, srv2.URL, request(true, userText("go")))
	require.Error(t, err, "dropped after AbortWait")
	require.NotNil(t, resp2)
	assert.Contains(t, body, "partial")
}

// With a slow stream, a non-streaming answer waits too; a client that
// leaves meanwhile is recorded as gone, and nothing is written.
func TestANonStreamingClientThatLeavesDuringTheDelay(t *testing.T) {
	srv, _ := serve(t, wire.Options{EventDelay: 2 * time.Second}, fakemodel.Step{Text: "late"})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(mustJSON(t, request(false, userText("go")))))
	require.NoError(t, err)
	_, err = http.DefaultClient.Do(req)
	require.Error(t, err)
	require.Eventually(t, func() bool { return srv.Requests()[0].ClientGone }, 5*time.Second, 10*time.Millisecond)
	rec := srv.Requests()
	assert.Equal(t, "M:text", rec[0].Label(), "the model answered; the client did not stay for it")
}

// A client that goes away while the model is still answering is
// recorded gone: the model's failure is not a fault it played.
func TestAClientGoneDuringTheModelCall(t *testing.T) {
	entered := make(chan struct{})
	model := modelFunc(func(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
		close(entered)
		<-ctx.Done()
		return loop.Response{}, &loop.RequestError{Kind: loop.KindOverloaded, Message: "too late"}
	})
	srv := wire.NewServer(model, wire.Options{}, messages.API{})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(mustJSON(t, request(true, userText("go")))))
	require.NoError(t, err)
	go func() {
		<-entered
		cancel()
	}()
	_, err = http.DefaultClient.Do(req)
	require.Error(t, err)
	require.Eventually(t, func() bool { r := srv.Requests(); return len(r) == 1 && r[0].Done > 0 }, 5*time.Second, 10*time.Millisecond)
	rec := srv.Requests()[0]
	assert.Equal(t, "M:gone", rec.Label())
	assert.True(t, rec.ClientGone)
	assert.Equal(t, 0, rec.Status)
	assert.Empty(t, rec.Fault, "the client left: no fault was played")
}

// A model whose call ends with the context it was given cancelled, with
// the client still there, played an abort.
func TestACancelledCallIsAnAbort(t *testing.T) {
	var h *wire.Handler
	model := modelFunc(func(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
		yield(loop.Block{Type: loop.BlockText, Text: "so far"})
		h.Abort()
		return loop.Response{}, ctx.Err()
	})
	h = wire.NewHandler(model, wire.Options{AbortWait: time.Millisecond}, messages.API{})
	srv, err := h.Listen()
	require.NoError(t, err)
	defer srv.Close()
	_, body, err := send(t, srv.URL, request(true, userText("go")))
	require.Error(t, err)
	assert.Contains(t, body, "so far")
	rec := srv.Requests()[0]
	assert.Equal(t, "M:abort", rec.Label())
	assert.Equal(t, 1, rec.Blocks)
	assert.Equal(t, 200, rec.Status)
}

// modelFunc is a loop.Model from a function.
type modelFunc func(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error)

func (f modelFunc) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	return f(ctx, req, yield)
}

// unencodable is the Messages API with a bug: its answers cannot be
// encoded as JSON (and, with errorsToo, neither can its errors).
type unencodable struct {
	messages.API
	errorsToo  bool
	zeroStatus bool
}

func (u unencodable) Reply(d *wire.Decoded, a *wire.Answer) any {
	return map[string]any{"f": func() {}}
}

func (u unencodable) Error(f *wire.Failure) wire.ErrorAnswer {
	ans := u.API.Error(f)
	if u.zeroStatus {
		ans.Status = 0
	}
	if u.errorsToo {
		ans.Body = map[string]any{"c": make(chan int)}
	}
	return ans
}

// An answer that cannot be encoded (a bug of an API) is the API's 500
// naming the encoding; when its error cannot be encoded either, a plain
// body says so. An error answer without a status is a 500.
func TestAnAnswerThatCannotBeEncoded(t *testing.T) {
	srv := wire.NewServer(&fakemodel.Model{Script: []fakemodel.Step{{Text: "ok", Repeat: fakemodel.Forever}}}, wire.Options{}, unencodable{})
	defer srv.Close()
	resp, body, err := send(t, srv.URL, request(false, userText("go")))
	require.NoError(t, err)
	assert.Equal(t, 500, resp.StatusCode)
	assert.Equal(t, "req_loopsim_000001", resp.Header.Get("request-id"))
	typ, msg := errorOf(t, body)
	assert.Equal(t, "api_error", typ)
	assert.Contains(t, msg, "loopsim: encoding the answer")

	srv2 := wire.NewServer(&fakemodel.Model{Script: []fakemodel.Step{{Text: "ok", Repeat: fakemodel.Forever}}}, wire.Options{}, unencodable{errorsToo: true})
	defer srv2.Close()
	resp, body, err = send(t, srv2.URL, request(false, userText("go")))
	require.NoError(t, err)
	assert.Equal(t, 500, resp.StatusCode)
	assert.Equal(t, `{"error":"loopsim: encoding the answer"}`, body)

	srv3 := wire.NewServer(&fakemodel.Model{Script: []fakemodel.Step{{Kind: fakemodel.Overloaded}}}, wire.Options{}, unencodable{zeroStatus: true})
	defer srv3.Close()
	resp, _, err = send(t, srv3.URL, request(false, userText("go")))
	require.NoError(t, err)
	assert.Equal(t, 500, resp.StatusCode, "no valid status: a 500")
}
