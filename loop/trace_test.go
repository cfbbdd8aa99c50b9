package loop

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// everyEvent has one populated event of every kind.
var everyEvent = Trace{
	IterationStart{Iteration: 1, Turn: 1, Messages: 3},
	Stage{Stage: StageSnip, TokensBefore: 10, TokensAfter: 5, TokensFreed: 5, Removed: []string{"m1"}},
	Compaction{Trigger: TriggerAuto, OK: true, TokensBefore: 100, TokensAfter: 10, Threshold: 90, Removed: []string{"m2"}, Kept: 1},
	RequestEvent{Purpose: PurposeMain, Model: "m", InputTokens: 10, MaxTokens: 8000, Messages: 2, Last: "user", Attempt: 1},
	ResponseEvent{Purpose: PurposeMain, StopReason: StopToolUse, Usage: Usage{InputTokens: 10, OutputTokens: 5}, Blocks: 1, ToolUses: []string{"t1"}},
	RequestFailed{Purpose: PurposeMain, Kind: KindOverloaded, Status: 529, Message: "overloaded <x>"},
	Retry{Attempt: 2, Reason: KindOverloaded, DelayMS: 512},
	Fallback{From: "a", To: "b", Orphans: []string{"t1"}, Dropped: "m3"},
	Withheld{Kind: WithheldPromptTooLong, Message: "prompt is too long: 3 tokens > 2 maximum"},
	ErrorEmitted{Message: "boom"},
	Notice{Text: "hi"},
	ToolSummary{Text: "read a file"},
	ToolBatch{ToolUses: []string{"t1"}},
	ToolResultEvent{ToolUseID: "t1", Name: "read", Synthetic: true, IsError: true, Tokens: 4},
	StopHook{Outcome: HookBlock, Messages: []string{"fix"}, BlocksInRow: 1},
	StopFailureHook{Error: "500 server_error: internal server error", Ran: true, Failure: "hook exited 1"},
	TransitionEvent{Transition: NextTurn, Changes: []FieldChange{{Field: "turn_count", From: "1", To: "2"}}},
	TransitionEvent{Transition: MaxOutputTokensEscalate, Dropped: "m9"},
	TerminalEvent{Terminal: Completed, Turn: 2, Iterations: 2},
}

func TestTraceRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, everyEvent.WriteJSONL(&buf))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, len(everyEvent), "one line an event")
	for i, l := range lines {
		assert.True(t, strings.HasPrefix(l, `{"kind":"`+string(everyEvent[i].EventKind())+`"`), "line %d starts with its kind: %s", i+1, l)
		assert.Equal(t, 1, strings.Count(l, `"kind":`), "line %d has one kind field: %s", i+1, l)
	}
	back, err := ReadJSONL(&buf)
	require.NoError(t, err)
	if diff := cmp.Diff(everyEvent, back); diff != "" {
		t.Errorf("round trip (-wrote +read):\n%s", diff)
	}
	seen := map[EventKind]bool{}
	for _, e := range everyEvent {
		seen[e.EventKind()] = true
	}
	for _, k := range []EventKind{KindIterationStart, KindStage, KindCompaction, KindRequest, KindResponse, KindRequestFailed,
		KindRetry, KindFallback, KindWithheld, KindErrorEmitted, KindNotice, KindToolSummary, KindToolBatch, KindToolResult,
		KindStopHook, KindStopFailure, KindTransition, KindTerminal} {
		assert.True(t, seen[k], "kind %s is covered by the round-trip test", k)
	}
}

func TestReadJSONLNamesBadLine(t *testing.T) {
	cases := map[string]string{
		"{\"kind\":\"terminal\",\"terminal\":\"completed\",\"turn\":1,\"iterations\":1}\n{\"kind\":\"nope\"}\n": "trace line 2: decode event: unknown kind \"nope\"",
		"{\"kind\":\"notice\",\"text\":\"x\",\"extra\":1}\n":                                                    "trace line 1: decode notice event: json: unknown field \"extra\"",
		"not json\n": "trace line 1: decode event",
	}
	for in, want := range cases {
		_, err := ReadJSONL(strings.NewReader(in))
		if assert.Error(t, err, "ReadJSONL(%q)", in) {
			assert.True(t, strings.HasPrefix(err.Error(), want), "ReadJSONL(%q) = %v, want prefix %q", in, err, want)
		}
	}
}

func TestTraceAccessors(t *testing.T) {
	got := everyEvent.Transitions()
	require.Len(t, got, 2)
	assert.Equal(t, NextTurn, got[0])
	assert.Equal(t, Completed, everyEvent.Terminal())
	reqs := everyEvent.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, 8000, reqs[0].MaxTokens)
}

// A trace's JSON keeps text as written: a summary tag or an ampersand in
// a message stays readable in the file.
func TestMarshalEventKeepsHTMLCharacters(t *testing.T) {
	b, err := MarshalEvent(Notice{Text: "<summary> & more"})
	require.NoError(t, err)
	assert.Equal(t, `{"kind":"notice","text":"<summary> & more"}`, string(b))
}

// Terminal finds a terminal wherever it is, the first event included, and
// reports none in a trace without one.
func TestTraceTerminalAnywhere(t *testing.T) {
	assert.Equal(t, MaxTurns, Trace{TerminalEvent{Terminal: MaxTurns, Turn: 3, Iterations: 3}}.Terminal())
	assert.Empty(t, Trace{IterationStart{Iteration: 1, Turn: 1, Messages: 1}}.Terminal())
	assert.Empty(t, Trace{}.Terminal())
}

// An event whose fields are all left out encodes as its kind alone, and
// reads back.
func TestMarshalEventWithNoFields(t *testing.T) {
	b, err := MarshalEvent(ToolSummary{})
	require.NoError(t, err)
	assert.Equal(t, `{"kind":"tool_use_summary"}`, string(b))
	back, err := UnmarshalEvent(b)
	require.NoError(t, err)
	assert.Equal(t, ToolSummary{}, back)
}

// ReadJSONL reads lines far longer than bufio's default token (a tool
// result's text in a notice, say), skips blank lines, and names the line
// where the reader failed.
func TestReadJSONLLinesBlanksAndReaderErrors(t *testing.T) {
	long := Notice{Text: strings.Repeat("x", 200_000)}
	var buf bytes.Buffer
	require.NoError(t, Trace{long}.WriteJSONL(&buf))
	back, err := ReadJSONL(&buf)
	require.NoError(t, err)
	assert.Equal(t, Trace{long}, back)

	in := "\n{\"kind\":\"notice\",\"text\":\"a\"}\n  \n\n{\"kind\":\"notice\",\"text\":\"b\"}\n"
	back, err = ReadJSONL(strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, Trace{Notice{Text: "a"}, Notice{Text: "b"}}, back)

	_, err = ReadJSONL(strings.NewReader("{\"kind\":\"notice\",\"text\":\"a\"}\nx\n"))
	assert.ErrorContains(t, err, "trace line 2: decode event", "a one-character line is not blank")

	gone := errors.New("disk gone")
	back, err = ReadJSONL(io.MultiReader(strings.NewReader("{\"kind\":\"notice\",\"text\":\"a\"}\n"), iotest.ErrReader(gone)))
	require.ErrorIs(t, err, gone)
	assert.EqualError(t, err, "trace line 2: disk gone")
	assert.Equal(t, Trace{Notice{Text: "a"}}, back, "the events read before the failure")
}
