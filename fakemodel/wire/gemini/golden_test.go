package gemini_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts under testdata/")

// transcripts are the answers whose wire form is pinned, streamed (.sse)
// and not (.json).
var transcripts = map[string]wire.Answer{
	"reply-tool-call": reply,
	"truncated": {Seq: 2, Blocks: []loop.Block{{Type: loop.BlockText, Text: "reading"}, {Type: loop.BlockToolUse, ID: "t", Name: "Read", Input: `{"pa`}},
		Response: loop.Response{StopReason: loop.StopMaxTokens, Usage: loop.Usage{InputTokens: 10, OutputTokens: 1000}}},
	"malformed-call": {Seq: 3, Blocks: []loop.Block{{Type: loop.BlockText, Text: "I'll use a tool."}},
		Response: loop.Response{StopReason: loop.StopToolUse, Usage: loop.Usage{InputTokens: 10, OutputTokens: 5}}},
	"empty": {Seq: 4, Response: loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{InputTokens: 10}}},
	"stream-error-after-2": {Seq: 5, Outcome: wire.OutcomeError,
		Blocks: []loop.Block{{Type: loop.BlockText, Text: "chunk 1"}, {Type: loop.BlockText, Text: "chunk 2"}},
		Err:    &loop.RequestError{Kind: loop.KindStream, Message: "error event after 2 content blocks"}},
	"overloaded-after-1": {Seq: 6, Outcome: wire.OutcomeError,
		Blocks: []loop.Block{{Type: loop.BlockText, Text: "chunk 1"}},
		Err:    &loop.RequestError{Kind: loop.KindFallbackTriggered, Status: 529, Message: "switch to the fallback model"}},
	"drop-after-1": {Seq: 7, Outcome: wire.OutcomeDrop, Blocks: []loop.Block{{Type: loop.BlockText, Text: "chunk 1"}},
		Err: &loop.RequestError{Kind: loop.KindConnection, Message: "connection dropped after 1 content block"}},
}

// The wire form of each answer matches its transcript under testdata/
// (go test ./fakemodel/wire/gemini -run TestGolden -update rewrites
// them): the stream's data-only events, and the JSON reply of a reply.
func TestGoldenTranscripts(t *testing.T) {
	d, err := decode(t, generate, request(user(text("hi"))))
	require.NoError(t, err)
	for name, ans := range transcripts {
		t.Run(name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			s := wire.NewStream(rec, httptest.NewRequest("POST", "/", nil), 0)
			api.Stream(s, d, &ans)
			require.NoError(t, s.Err())
			golden(t, name+".sse", rec.Body.Bytes())
			if ans.Outcome == wire.OutcomeReply {
				data, err := json.MarshalIndent(api.Reply(d, &ans), "", "  ")
				require.NoError(t, err)
				golden(t, name+".json", append(data, '\n'))
			}
		})
	}
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no transcript: run with -update")
	assert.Equal(t, string(want), string(got), "%s differs (rerun with -update if the change is meant)", path)
}

// Every streamed event is a data-only line with a JSON object: the
// stream the genai SDKs split on blank lines.
func TestStreamEventsAreDataOnly(t *testing.T) {
	d, err := decode(t, generate, request(user(text("hi"))))
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	api.Stream(wire.NewStream(rec, httptest.NewRequest("POST", "/", nil), 0), d, &reply)
	events := bytes.Split(bytes.TrimSuffix(rec.Body.Bytes(), []byte("\n\n")), []byte("\n\n"))
	require.Greater(t, len(events), 4)
	for _, e := range events {
		data, ok := bytes.CutPrefix(e, []byte("data: "))
		require.True(t, ok, "event %q", e)
		assert.True(t, json.Valid(data), "event %q", e)
		assert.NotContains(t, string(data), "\n")
	}
}
