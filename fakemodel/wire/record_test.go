package wire_test

import (
	"bytes"
	"context"
	"net/http"
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

func TestRecordsEachRequestNormalized(t *testing.T) {
	srv, _ := serve(t, wire.Options{},
		fakemodel.Step{Kind: fakemodel.Truncated},
		fakemodel.Step{Text: "<summary>s</summary>"},
		fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}},
	)
	first := request(true, userText("go"))
	first["system"] = strings.Repeat("s", 400)
	first["tools"] = []any{map[string]any{"name": "Read", "input_schema": map[string]any{"type": "object"}}}
	post(t, srv.URL, first).Body.Close()
	compact := request(false, userText("go"), map[string]any{"role": "assistant", "content": "cut"},
		userText("Summarise. Put it between <summary> and </summary>."))
	post(t, srv.URL, compact).Body.Close()
	main := request(true, userText("go"), map[string]any{"role": "assistant", "content": "cut"}, userText("resume"))
	post(t, srv.URL, main).Body.Close()

	rec := srv.Requests()
	require.Len(t, rec, 3)
	assert.Equal(t, []string{"M:trunc", "C:text", "M:tool"}, wire.Labels(rec))
	assert.Equal(t, loop.StopMaxTokens, rec[0].Response.StopReason, "the answer's end, kept in memory")
	for i := range rec {
		// the times are measurements, checked in TestRecordsArrival; the
		// answer's end in TestRecordsFaultAndResponse
		rec[i].Arrival, rec[i].Done, rec[i].Response = 0, 0, loop.Response{}
	}
	assert.Equal(t, wire.Record{Seq: 1, API: "messages", Purpose: loop.PurposeMain, Model: "claude-test", MaxTokens: 1000, Stream: true,
		Roles: "u", Messages: 1, Tools: 1, InputTokens: rec[0].SystemTokens + 4, SystemTokens: rec[0].SystemTokens,
		Appended: []string{"user:text"}, Answer: "trunc", Status: 200, Blocks: 1}, rec[0])
	assert.Greater(t, rec[0].SystemTokens, 100, "system prompt and tool definitions are measured")
	assert.Equal(t, 1, rec[1].Kept, "the compaction request carries the first request's message")
	assert.Equal(t, 0, rec[1].Dropped)
	assert.Equal(t, []string{"assistant:text", "user:text"}, rec[1].Appended)
	assert.False(t, rec[1].Stream)
	assert.Equal(t, "uau", rec[2].Roles)
	assert.Equal(t, 2, rec[2].Kept, "two messages as in the compaction request before it")
	assert.Equal(t, 1, rec[2].Dropped, "its summarise instruction is gone")
	assert.Equal(t, []string{"user:text"}, rec[2].Appended)

	var buf bytes.Buffer
	require.NoError(t, srv.WriteJSONL(&buf))
	back, err := wire.ReadJSONL(&buf)
	require.NoError(t, err)
	assert.Equal(t, rec, back)
	_, err = wire.ReadJSONL(strings.NewReader(`{"seq":1,"nope":2}`))
	assert.ErrorContains(t, err, "nope")
}

func TestPurposeRule(t *testing.T) {
	msg := func(role loop.Role, b loop.Block) loop.Message {
		return loop.Message{Role: role, Blocks: []loop.Block{b}}
	}
	text := func(s string) loop.Block { return loop.Block{Type: loop.BlockText, Text: s} }
	assert.Equal(t, loop.PurposeCompact, wire.PurposeOf([]loop.Message{msg(loop.RoleUser, text(loop.SummariseInstruction))}))
	assert.Equal(t, loop.PurposeCompact, wire.PurposeOf([]loop.Message{msg(loop.RoleUser, text(loop.ReaskInstruction))}))
	assert.Equal(t, loop.PurposeMain, wire.PurposeOf([]loop.Message{msg(loop.RoleUser, text(loop.SummariseInstruction)), msg(loop.RoleAssistant, text("x"))}))
	assert.Equal(t, loop.PurposeMain, wire.PurposeOf([]loop.Message{msg(loop.RoleUser, text("summarise please"))}))
	assert.Equal(t, loop.PurposeMain, wire.PurposeOf(nil))
	assert.Equal(t, loop.PurposeMain, wire.PurposeOf([]loop.Message{msg(loop.RoleUser, text("  <summary>the work so far</summary>"))}),
		"a summary left by a compaction is not a request for one")
	assert.Equal(t, loop.PurposeMain, wire.PurposeOf([]loop.Message{msg(loop.RoleUser, text("<analysis>a</analysis><summary>s</summary>"))}))
}

func TestSlowStreamAndAClientThatLeaves(t *testing.T) {
	srv, _ := serve(t, wire.Options{EventDelay: 20 * time.Millisecond}, fakemodel.Step{Text: strings.Repeat("x", 640), Repeat: 2})
	began := time.Now()
	resp := post(t, srv.URL, request(true, userText("go")))
	events, err := readEvents(t, resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(began), time.Duration(len(events)-1)*20*time.Millisecond, "each event after the first waits")

	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(mustJSON(t, request(true, userText("go")))))
	require.NoError(t, err)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	buf := make([]byte, 10)
	_, err = resp.Body.Read(buf)
	require.NoError(t, err)
	cancel()
	resp.Body.Close()
	require.Eventually(t, func() bool { return srv.Requests()[1].ClientGone }, 5*time.Second, 10*time.Millisecond)
}

func TestAbortStep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	model := &fakemodel.Model{Script: []fakemodel.Step{{Kind: fakemodel.Abort, Text: "partial", After: 1}}}
	h := wire.NewHandler(model, wire.Options{OnAbort: cancel}, messages.API{})
	model.Cancel = h.Abort
	srv, err := h.Listen()
	require.NoError(t, err)
	defer srv.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(mustJSON(t, request(true, userText("go")))))
	require.NoError(t, err)
	// The client is cancelled after the first block was sent: depending on
	// timing it fails before the headers or while reading the stream.
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		defer resp.Body.Close()
		var events []event
		events, err = readEvents(t, resp.Body)
		assert.LessOrEqual(t, len(events), 5)
	}
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, []string{"M:abort"}, wire.Labels(srv.Requests()))
}

func TestDrivenByTheWorkload(t *testing.T) {
	w := fakemodel.DefaultWorkload()
	w.Faults = fakemodel.Faults{}
	ep := w.Episode(fakemodel.Seeds{Workload: 1, Faults: 2}, 200_000, nil)
	srv := wire.NewServer(ep, wire.Options{}, messages.API{})
	defer srv.Close()
	resp := post(t, srv.URL, request(true, userText("go")))
	events, err := readEvents(t, resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, "message_stop", events[len(events)-1].Name)
	assert.Contains(t, []string{"M:tool", "M:text"}, srv.Requests()[0].Label())
}

func TestInputTokensHeader(t *testing.T) {
	srv, model := serve(t, wire.Options{}, fakemodel.Step{Text: "ok"})
	send := func(v string) *http.Response {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(mustJSON(t, request(false, userText("go")))))
		require.NoError(t, err)
		req.Header.Set(wire.InputTokensHeader, v)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		return resp
	}
	resp := send("12345")
	assert.EqualValues(t, 12345, decodeJSON(t, resp)["usage"].(map[string]any)["input_tokens"])
	assert.Equal(t, 12345, model.Requests[0].InputTokens)
	assert.Equal(t, 12345, srv.Requests()[0].InputTokens)
	resp = send("-3")
	assert.Equal(t, 400, resp.StatusCode)
	assert.Contains(t, decodeJSON(t, resp)["error"].(map[string]any)["message"], "Loopsim-Input-Tokens")
}

// Every record carries "appended" as a list, empty when nothing was
// appended or the request could not be read: never null.
func TestAppendedIsNeverNull(t *testing.T) {
	srv, _ := serve(t, wire.Options{}, fakemodel.Step{Text: "ok", Repeat: 2})
	b := request(false, userText("go"))
	post(t, srv.URL, b).Body.Close()
	post(t, srv.URL, b).Body.Close()                   // a retry: nothing appended
	post(t, srv.URL, []byte(`{"model":`)).Body.Close() // rejected: nothing read
	rec := srv.Requests()
	require.Len(t, rec, 3)
	for _, r := range rec[1:] {
		assert.NotNil(t, r.Appended, "record %d", r.Seq)
	}
	var buf bytes.Buffer
	require.NoError(t, srv.WriteJSONL(&buf))
	assert.NotContains(t, buf.String(), `"appended":null`)
	assert.Equal(t, 3, strings.Count(buf.String(), `"appended":[`))
}

func TestRecordsArrival(t *testing.T) {
	srv, _ := serve(t, wire.Options{}, fakemodel.Step{Kind: fakemodel.RateLimited, RetryAfterMS: 30}, fakemodel.Step{Text: "done"})
	post(t, srv.URL, request(false, userText("go"))).Body.Close()
	time.Sleep(30 * time.Millisecond)
	post(t, srv.URL, request(false, userText("go"))).Body.Close()
	post(t, srv.URL, []byte("{")).Body.Close() // refused: recorded with its arrival too

	rec := srv.Requests()
	require.Len(t, rec, 3)
	assert.GreaterOrEqual(t, rec[0].Arrival, time.Duration(0))
	assert.GreaterOrEqual(t, rec[1].Arrival-rec[0].Arrival, 30*time.Millisecond, "the gap the client left, on the server's clock")
	assert.GreaterOrEqual(t, rec[2].Arrival, rec[1].Arrival)
	for _, r := range rec {
		assert.GreaterOrEqual(t, r.Done, r.Arrival, "request %d is done after it arrived", r.Seq)
	}
	assert.LessOrEqual(t, rec[0].Done, rec[1].Arrival, "the 429 was sent before the retry came")
	var buf bytes.Buffer
	require.NoError(t, srv.WriteJSONL(&buf))
	assert.NotContains(t, buf.String(), "arrival", "a measurement stays out of the record files")
	assert.NotContains(t, buf.String(), "done")
}

// A record keeps in memory the kind of failure the model played and the
// end of the answer it sent (stop reason and usage), for the exporters;
// neither goes to JSON Lines.
func TestRecordsFaultAndResponse(t *testing.T) {
	srv, _ := serve(t, wire.Options{},
		fakemodel.Step{Kind: fakemodel.Overloaded},
		fakemodel.Step{Kind: fakemodel.ConnectionDropped},
		fakemodel.Step{Text: "done", InputTokens: 40, OutputTokens: 7})
	post(t, srv.URL, request(false, userText("go"))).Body.Close()
	if resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(`{"model":"claude-test","max_tokens":1000,"messages":[{"role":"user","content":"go"}]}`)); err == nil {
		resp.Body.Close() // the connection is dropped: an error is what a client sees
	}
	post(t, srv.URL, request(false, userText("go"))).Body.Close()
	post(t, srv.URL, []byte("{")).Body.Close()

	rec := srv.Requests()
	require.Len(t, rec, 4)
	assert.Equal(t, []string{"M:529", "M:drop", "M:text", "?:rejected"}, wire.Labels(rec))
	assert.Equal(t, []loop.ErrorKind{loop.KindOverloaded, loop.KindConnection, "", ""},
		[]loop.ErrorKind{rec[0].Fault, rec[1].Fault, rec[2].Fault, rec[3].Fault})
	assert.Equal(t, loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{InputTokens: 40, OutputTokens: 7}}, rec[2].Response)
	assert.Zero(t, rec[0].Response, "a failure sent no answer's end")
	for _, r := range rec {
		assert.Positive(t, r.Done, "request %d has its end", r.Seq)
	}
	var buf bytes.Buffer
	require.NoError(t, srv.WriteJSONL(&buf))
	assert.NotContains(t, buf.String(), `"fault"`)
	assert.NotContains(t, buf.String(), "end_turn")
}
