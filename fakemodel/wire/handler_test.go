package wire_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/messages"
	"github.com/loopsim/loopsim/loop"
)

// routedAPI is the Messages API with routes of its own, to reach what the
// core does for each kind of route: /x/stream (a stream the URL asks
// for), /x/compact (compaction by the endpoint), /x/get (GET and PUT
// only), /x/count (a token count), /x/nothing (a Decode that returns
// neither a request nor an error).
type routedAPI struct{ messages.API }

func (routedAPI) Name() string { return "routed" }

func (a routedAPI) Route(r *http.Request) (wire.Route, bool) {
	switch r.URL.Path {
	case "/x/stream":
		return wire.Route{Endpoint: wire.EndpointGenerate, Stream: true}, true
	case "/x/compact":
		return wire.Route{Endpoint: wire.EndpointCompact}, true
	case "/x/get":
		return wire.Route{Endpoint: wire.EndpointGenerate, Methods: []string{http.MethodGet, http.MethodPut}}, true
	case "/x/count":
		return wire.Route{Endpoint: wire.EndpointCount}, true
	case "/x/nothing":
		return wire.Route{Endpoint: wire.EndpointGenerate}, true
	}
	return wire.Route{}, false
}

func (a routedAPI) Decode(rt wire.Route, body []byte, opts wire.DecodeOptions) (*wire.Decoded, error) {
	if bytes.Contains(body, []byte("decode-nothing")) {
		return nil, nil
	}
	return a.API.Decode(rt, body, opts)
}

func serveRouted(t *testing.T, opts wire.Options, script ...fakemodel.Step) (*wire.Server, *fakemodel.Model) {
	t.Helper()
	model := &fakemodel.Model{Script: script, Window: 200_000}
	srv := wire.NewServer(model, opts, routedAPI{}, messages.API{})
	t.Cleanup(srv.Close)
	return srv, model
}

func do(t *testing.T, method, url string, body []byte, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(data)
}

func TestNewHandlerNeedsAnAPI(t *testing.T) {
	assert.PanicsWithValue(t, "wire: NewHandler needs at least one API", func() { wire.NewHandler(&fakemodel.Model{}, wire.Options{}) })
	h := wire.NewHandler(&fakemodel.Model{}, wire.Options{}, routedAPI{}, messages.API{})
	apis := h.APIs()
	assert.Equal(t, []string{"routed", "messages"}, []string{apis[0].Name(), apis[1].Name()})
	apis[0] = messages.API{}
	assert.Equal(t, "routed", h.APIs()[0].Name(), "APIs is a copy")
}

// A request goes to the first API whose route takes it; a path none
// takes is a 404 in the first API's words, a method its route does not
// take a 405; neither is recorded nor uses a step.
func TestRouting(t *testing.T) {
	srv, model := serveRouted(t, wire.Options{}, fakemodel.Step{Text: "ok", Repeat: fakemodel.Forever})
	raw := []byte(mustJSON(t, request(false, userText("go"))))

	resp, body := do(t, http.MethodPost, srv.URL+"/nowhere", raw)
	assert.Equal(t, 404, resp.StatusCode)
	typ, msg := errorOf(t, body)
	assert.Equal(t, "not_found_error", typ)
	assert.Equal(t, "Not found: POST /nowhere", msg)

	resp, body = do(t, http.MethodGet, srv.URL+"/v1/messages", nil)
	assert.Equal(t, 405, resp.StatusCode, "a route without methods takes POST only")
	typ, msg = errorOf(t, body)
	assert.Equal(t, "invalid_request_error", typ)
	assert.Equal(t, "Method GET not allowed", msg)

	resp, _ = do(t, http.MethodPost, srv.URL+"/x/get", raw)
	assert.Equal(t, 405, resp.StatusCode, "a route with methods takes those only")
	resp, _ = do(t, http.MethodPut, srv.URL+"/x/get", raw)
	assert.Equal(t, 200, resp.StatusCode)
	resp, _ = do(t, http.MethodGet, srv.URL+"/x/get", raw)
	assert.Equal(t, 200, resp.StatusCode)

	rec := srv.Requests()
	require.Len(t, rec, 2, "only the requests served are recorded")
	assert.Equal(t, []string{"routed", "routed"}, []string{rec[0].API, rec[1].API})
	assert.Len(t, model.Requests, 2)
}

// A route that asks for a stream streams whatever the body says; a
// compaction endpoint makes a compaction request whatever its messages.
func TestWhatARouteSays(t *testing.T) {
	srv, model := serveRouted(t, wire.Options{}, fakemodel.Step{Text: "ok", Repeat: fakemodel.Forever})
	resp, body := do(t, http.MethodPost, srv.URL+"/x/stream", []byte(mustJSON(t, request(false, userText("go")))))
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	assert.Contains(t, body, "event: message_stop")
	resp, body = do(t, http.MethodPost, srv.URL+"/x/compact", []byte(mustJSON(t, request(false, userText("go")))))
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), body)

	rec := srv.Requests()
	require.Len(t, rec, 2)
	assert.True(t, rec[0].Stream)
	assert.Equal(t, "M:text", rec[0].Label())
	assert.Equal(t, "C:text", rec[1].Label())
	assert.False(t, rec[1].Stream)
	require.Len(t, model.Requests, 2)
	assert.False(t, model.Requests[0].NonStreaming, "a streamed request is not the non-streaming retry")
	assert.True(t, model.Requests[1].NonStreaming)
	assert.Equal(t, loop.PurposeCompact, model.Requests[1].Purpose)
}

// A Decode that returns neither a request nor an error is the harness's
// 500, not a crash.
func TestADecodeThatReturnsNothing(t *testing.T) {
	srv, model := serveRouted(t, wire.Options{}, fakemodel.Step{Text: "ok"})
	resp, body := do(t, http.MethodPost, srv.URL+"/x/nothing", []byte(`{"decode-nothing":1}`))
	assert.Equal(t, 500, resp.StatusCode)
	_, msg := errorOf(t, body)
	assert.Equal(t, "loopsim: routed decoded nothing and no error", msg)
	assert.Empty(t, model.Requests)
}

// A token count is answered from the estimate and is neither recorded
// nor a step; its failures are the API's errors, unrecorded too.
func TestATokenCount(t *testing.T) {
	srv, model := serveRouted(t, wire.Options{MaxBodyBytes: 400}, fakemodel.Step{Text: "ok"})
	resp, body := do(t, http.MethodPost, srv.URL+"/x/count", []byte(mustJSON(t, body{"model": "m", "messages": []any{userText("go")}})))
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Empty(t, resp.Header.Get("request-id"), "an unrecorded request has no id")
	assert.JSONEq(t, `{"input_tokens":4}`, body)

	resp, body = do(t, http.MethodPost, srv.URL+"/x/count", []byte(`{"model":`))
	assert.Equal(t, 400, resp.StatusCode)
	typ, _ := errorOf(t, body)
	assert.Equal(t, "invalid_request_error", typ)

	resp, body = do(t, http.MethodPost, srv.URL+"/x/count", bytes.Repeat([]byte("x"), 401))
	assert.Equal(t, 413, resp.StatusCode)
	typ, msg := errorOf(t, body)
	assert.Equal(t, "request_too_large", typ)
	assert.Equal(t, "Request exceeds the maximum allowed number of bytes.", msg)

	conn := rawRequest(t, srv, "POST /x/count HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"model\":", true)
	r, b := readResponse(t, conn, 5*time.Second)
	assert.Equal(t, 400, r.StatusCode)
	assert.Contains(t, b, "could not be read")

	assert.Empty(t, srv.Requests(), "no count is recorded")
	assert.Empty(t, model.Requests)
}

// A body over the limit is the API's 413 and a record naming the limit;
// a body at the limit is read.
func TestTheBodyLimit(t *testing.T) {
	raw := []byte(mustJSON(t, request(false, userText("go"))))
	srv, _ := serve(t, wire.Options{MaxBodyBytes: int64(len(raw))}, fakemodel.Step{Text: "ok"})
	resp, _ := do(t, http.MethodPost, srv.URL+"/v1/messages", raw)
	assert.Equal(t, 200, resp.StatusCode, "a body of exactly the limit is read")
	resp, body := do(t, http.MethodPost, srv.URL+"/v1/messages", append(raw, ' '))
	assert.Equal(t, 413, resp.StatusCode)
	assert.Equal(t, "req_loopsim_000002", resp.Header.Get("request-id"))
	typ, msg := errorOf(t, body)
	assert.Equal(t, "request_too_large", typ)
	assert.Equal(t, "Request exceeds the maximum allowed number of bytes.", msg)
	rec := srv.Requests()
	require.Len(t, rec, 2)
	assert.Equal(t, wire.Record{Seq: 2, API: "messages", Answer: "413", Status: 413, ErrorType: "request_too_large",
		Error: "request body over the size limit", Appended: []string{}, Fault: loop.KindRequestTooLarge,
		Arrival: rec[1].Arrival, Done: rec[1].Done}, rec[1])
	assert.Equal(t, "request_too_large", rec[1].FaultKind())

	// the default limit is 32 MB: a body of 1 MB is read
	srv2, _ := serve(t, wire.Options{}, fakemodel.Step{Text: "ok"})
	big := request(false, userText(strings.Repeat("x", 1<<20)))
	resp, _ = do(t, http.MethodPost, srv2.URL+"/v1/messages", []byte(mustJSON(t, big)))
	assert.Equal(t, 200, resp.StatusCode)
}

// A request the API refuses is recorded with what could be read of it.
func TestARejectedRequestIsRecordedWithWhatWasRead(t *testing.T) {
	srv, model := serve(t, wire.Options{Models: []loop.ModelInfo{{Name: "claude-test", MaxOutputTokens: 500}}}, fakemodel.Step{Text: "ok"})
	resp, body := do(t, http.MethodPost, srv.URL+"/v1/messages", []byte(mustJSON(t, request(true, userText("go"), userText("more")))))
	assert.Equal(t, 400, resp.StatusCode)
	assert.Equal(t, "req_loopsim_000001", resp.Header.Get("request-id"))
	_, msg := errorOf(t, body)
	assert.Contains(t, msg, "max_tokens: 1000 > 500")
	rec := srv.Requests()
	require.Len(t, rec, 1)
	assert.Equal(t, wire.Record{Seq: 1, API: "messages", Purpose: loop.PurposeMain, Model: "claude-test", MaxTokens: 1000, Stream: true,
		Roles: "uu", Messages: 2, Answer: "rejected", Status: 400, ErrorType: "invalid_request_error", Error: msg,
		Appended: []string{}, Arrival: rec[0].Arrival, Done: rec[0].Done}, rec[0])
	assert.Empty(t, model.Requests)
	assert.Empty(t, rec[0].FaultKind(), "the agent's own fault, not one the server played")
}

// The client's own count replaces the estimate; zero is a count, a
// negative number or text is refused.
func TestTheInputTokensHeaderBounds(t *testing.T) {
	srv, model := serve(t, wire.Options{}, fakemodel.Step{Text: "ok", Repeat: fakemodel.Forever})
	raw := []byte(mustJSON(t, request(false, userText("go"))))
	resp, _ := do(t, http.MethodPost, srv.URL+"/v1/messages", raw, wire.InputTokensHeader, "0")
	assert.Equal(t, 200, resp.StatusCode)
	require.Len(t, model.Requests, 1)
	assert.Equal(t, 0, model.Requests[0].InputTokens)
	resp, body := do(t, http.MethodPost, srv.URL+"/v1/messages", raw, wire.InputTokensHeader, "many")
	assert.Equal(t, 400, resp.StatusCode)
	_, msg := errorOf(t, body)
	assert.Equal(t, `Loopsim-Input-Tokens: "many" is not a whole number of zero or more`, msg)
	rec := srv.Requests()
	require.Len(t, rec, 2)
	assert.Equal(t, "?:rejected", rec[1].Label(), "nothing of a refused count is read")
	assert.Len(t, model.Requests, 1)
}

// The body's read deadline is lifted once it is in: a stream slower than
// ReadTimeout is not cut.
func TestASlowStreamOutlastsTheReadTimeout(t *testing.T) {
	srv, _ := serve(t, wire.Options{ReadTimeout: 150 * time.Millisecond, EventDelay: 40 * time.Millisecond}, fakemodel.Step{Text: strings.Repeat("x", 64*8)})
	resp := post(t, srv.URL, request(true, userText("go")))
	defer resp.Body.Close()
	events, err := readEvents(t, resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "message_stop", events[len(events)-1].Name)
	assert.Greater(t, len(events), 8)
	rec := srv.Requests()
	assert.False(t, rec[0].ClientGone)
}

// After Close, the handler answers 503 without asking the model.
func TestAClosedHandlerAnswers503(t *testing.T) {
	srv, model := serve(t, wire.Options{}, fakemodel.Step{Text: "ok"})
	srv.Close()
	srv.Close() // twice is fine
	rr := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(mustJSON(t, request(false, userText("go")))))
	srv.Handler().ServeHTTP(rr, req)
	assert.Equal(t, 503, rr.Code)
	typ, msg := errorOf(t, rr.Body.String())
	assert.Equal(t, "api_error", typ)
	assert.Equal(t, "the server is shutting down", msg)
	assert.Empty(t, model.Requests)
	assert.Empty(t, srv.Requests())
}

// Requests is a copy: changing it changes no record.
func TestRequestsIsACopy(t *testing.T) {
	srv, _ := serve(t, wire.Options{}, fakemodel.Step{Text: "ok"})
	post(t, srv.URL, request(false, userText("go"))).Body.Close()
	rec := srv.Requests()
	rec[0].Appended[0] = "changed"
	rec[0].Answer = "changed"
	assert.Equal(t, []string{"user:text"}, srv.Requests()[0].Appended)
	assert.Equal(t, "text", srv.Requests()[0].Answer)
}

func TestRequestID(t *testing.T) {
	assert.Equal(t, "req_loopsim_000001", wire.RequestID(1))
	assert.Equal(t, "req_loopsim_1234567", wire.RequestID(1234567))
}

// The server listens where it is told, and says so when it cannot.
func TestListen(t *testing.T) {
	srv, _ := serve(t, wire.Options{}, fakemodel.Step{Text: "ok"})
	assert.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:"), srv.URL)
	addr := strings.TrimPrefix(srv.URL, "http://")
	_, err := wire.Start(&fakemodel.Model{}, wire.Options{Addr: addr}, messages.API{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "wire: listen on "+addr)
	assert.Panics(t, func() { wire.NewServer(&fakemodel.Model{}, wire.Options{Addr: addr}, messages.API{}) })

	var buf bytes.Buffer
	post(t, srv.URL, request(false, userText("go"))).Body.Close()
	require.NoError(t, srv.WriteJSONL(&buf))
	var rec map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rec))
	assert.Equal(t, "text", rec["answer"])
	assert.Same(t, srv.Handler(), srv.Handler())
}
