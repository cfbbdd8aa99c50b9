package loop_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// An error event in the middle of a stream, after content: the released
// agent keeps what was streamed and goes on streaming
// (observed/testdata/cases/stream-error-*.case.json).

var (
	cutAfterText = fakemodel.Step{Kind: fakemodel.StreamError, Text: "Partial", After: 1}
	cutBeforeAny = fakemodel.Step{Kind: fakemodel.StreamError}
	cutThinking  = fakemodel.Step{Kind: fakemodel.StreamError, Thinking: "Let me look.", After: 1}
	cutAfterTool = fakemodel.Step{Kind: fakemodel.StreamError, Text: "Looking.",
		ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"path":"a.go"}`}}, After: 2}
	cutMidInput = fakemodel.Step{Kind: fakemodel.StreamError, Text: "Looking.",
		ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"path":"a.`}}, After: 2}
)

func forever(s fakemodel.Step) fakemodel.Step { s.Repeat = fakemodel.Forever; return s }

// requestFlags is each request's streaming and max_tokens.
func requestFlags(m *fakemodel.Model) []string {
	var out []string
	for _, r := range m.Requests {
		s := "stream"
		if r.NonStreaming {
			s = "non-streaming"
		}
		out = append(out, s+" "+strconv.Itoa(r.MaxTokens))
	}
	return out
}

func TestStreamErrorAfterTextKeepsReplyAndStreamsAgain(t *testing.T) {
	res, m := ccRun(t, fixture{script: []fakemodel.Step{cutAfterText, textStep}})
	checkSeq(t, res, "M:stream_error → stream_error_recovery → M:text", loop.Completed)
	assert.Equal(t, []string{"stream 128000", "stream 128000"}, requestFlags(m))
	assert.Equal(t, []reqShape{{"main", "opus", 128_000, 1, "user"}, {"main", "opus", 128_000, 3, "user:meta"}}, shapes(m))
	second := m.Requests[1].Messages
	assert.Equal(t, "Partial", second[1].Text(), "the partial reply is kept")
	assert.Equal(t, loop.StreamErrorNudge, second[2].Text())
	assert.Equal(t, 1, res.State.MaxOutputTokensRecoveryCount, "the continuation counts with the truncation recoveries")
}

// The guard: three continuations in a row, the fourth cut ends api_error
// (observed: stream-error-after-1-repeated).
func TestStreamErrorAfterContentIsBounded(t *testing.T) {
	res, m := ccRun(t, fixture{script: []fakemodel.Step{forever(cutAfterText)}})
	checkSeq(t, res, repeatSeq("M:stream_error", "stream_error_recovery", 4), loop.APIError)
	require.Len(t, m.Requests, 4)
	assert.Equal(t, 7, len(m.Requests[3].Messages), "each continuation appends the partial reply and the note: u + 3 × (a, u)")
	last := res.State.Messages[len(res.State.Messages)-1]
	assert.True(t, last.APIError, "the run ends with the error shown")
}

// Truncation recoveries and stream-error continuations share one count
// (observed: truncated-then-stream-errors).
func TestStreamErrorSharesTheRecoveryCount(t *testing.T) {
	res, _ := ccRun(t, fixture{script: []fakemodel.Step{truncated, truncated, forever(cutAfterText)}})
	checkSeq(t, res, "M:trunc → max_output_tokens_recovery → M:trunc → max_output_tokens_recovery → "+
		"M:stream_error → stream_error_recovery → M:stream_error", loop.APIError)
}

// A tool turn resets the count (observed: stream-errors-then-tool).
func TestStreamErrorCountResetsAfterToolTurn(t *testing.T) {
	twice := cutAfterText
	twice.Repeat = 2
	res, _ := ccRun(t, fixture{script: []fakemodel.Step{twice, toolStep, forever(cutAfterText)}})
	checkSeq(t, res, repeatSeq("M:stream_error", "stream_error_recovery", 2)+" → stream_error_recovery → M:tool → next_turn → "+
		repeatSeq("M:stream_error", "stream_error_recovery", 4), loop.APIError)
}

// A complete tool_use before the error is kept with an error result (the
// tool does not run) and no note (observed: stream-error-after-tool,
// stream-error-after-text-and-tool).
func TestStreamErrorAfterToolUseGivesItAnErrorResult(t *testing.T) {
	tools := &fakemodel.Tools{}
	res, m := ccRun(t, fixture{script: []fakemodel.Step{cutAfterTool, textStep}, tools: tools})
	checkSeq(t, res, "M:stream_error → stream_error_recovery → M:text", loop.Completed)
	assert.Empty(t, tools.Calls, "the cut reply's tool does not run")
	second := m.Requests[1].Messages
	require.Len(t, second, 3)
	assert.Len(t, second[1].ToolUses(), 1)
	results := second[2].Blocks
	require.Len(t, results, 1)
	assert.Equal(t, loop.BlockToolResult, results[0].Type)
	assert.True(t, results[0].IsError)
	assert.Equal(t, loop.StreamErrorToolResult, results[0].Text)
}

// A tool_use cut in the middle of its input never finished: it is not
// kept; the text before it is (observed: stream-error-mid-tool-input).
func TestStreamErrorMidToolInputDropsTheOpenBlock(t *testing.T) {
	tools := &fakemodel.Tools{}
	res, m := ccRun(t, fixture{script: []fakemodel.Step{cutMidInput, textStep}, tools: tools})
	checkSeq(t, res, "M:stream_error → stream_error_recovery → M:text", loop.Completed)
	assert.Empty(t, tools.Calls)
	second := m.Requests[1].Messages
	require.Len(t, second, 3)
	assert.Empty(t, second[1].ToolUses(), "the open tool_use is dropped")
	assert.Equal(t, "Looking.", second[1].Text())
	assert.Equal(t, loop.StreamErrorNudge, second[2].Text())
}

// Only a thinking block before the error: nothing is kept, the same
// request is streamed again, twice, then api_error (observed:
// stream-error-after-thinking, stream-error-after-thinking-repeated).
func TestStreamErrorAfterThinkingResendsStreaming(t *testing.T) {
	res, m := ccRun(t, fixture{script: []fakemodel.Step{cutThinking, textStep}})
	checkSeq(t, res, "M:stream_error → M:text", loop.Completed)
	assert.Equal(t, []string{"stream 128000", "stream 128000"}, requestFlags(m))
	assert.Equal(t, 1, len(m.Requests[1].Messages))

	res, m = ccRun(t, fixture{script: []fakemodel.Step{forever(cutThinking)}})
	checkSeq(t, res, "M:stream_error → M:stream_error → M:stream_error", loop.APIError)
	assert.Equal(t, []string{"stream 128000", "stream 128000", "stream 128000"}, requestFlags(m))
}

// A continuation whose request fails before any content goes
// non-streaming as any other (observed: stream-error-after-1-then-0).
func TestStreamErrorAfterContentThenBeforeContent(t *testing.T) {
	res, m := ccRun(t, fixture{script: []fakemodel.Step{cutAfterText, cutBeforeAny, textStep}})
	checkSeq(t, res, "M:stream_error → stream_error_recovery → M:stream_error → M:text", loop.Completed)
	assert.Equal(t, []string{"stream 128000", "stream 128000", "non-streaming 64000"}, requestFlags(m))
	assert.Equal(t, 3, len(m.Requests[2].Messages))
}

// Before any content nothing changes: one non-streaming attempt at
// 64,000 (observed: stream-error-after-0).
func TestStreamErrorBeforeContentGoesNonStreaming(t *testing.T) {
	res, m := ccRun(t, fixture{script: []fakemodel.Step{cutBeforeAny, textStep}})
	checkSeq(t, res, "M:stream_error → M:text", loop.Completed)
	assert.Equal(t, []string{"stream 128000", "non-streaming 64000"}, requestFlags(m))
}

// The seed keeps its non-streaming retry after content; the switch is
// the policy's.
func TestStreamErrorRecoveryIsThePolicys(t *testing.T) {
	res, m := ccRun(t, fixture{script: []fakemodel.Step{cutAfterText, textStep}}, "stream_error_recovery", "false",
		"stream_error_thinking_resends", "0")
	checkSeq(t, res, "M:stream_error → M:text", loop.Completed)
	assert.Equal(t, []string{"stream 128000", "non-streaming 64000"}, requestFlags(m))
	assert.False(t, loop.Seed().StreamErrorRecovery)
	assert.Zero(t, loop.Seed().StreamErrorThinkingResends)
	assert.True(t, loop.ClaudeCode().StreamErrorRecovery)
	assert.Equal(t, 2, loop.ClaudeCode().StreamErrorThinkingResends)
}

// With no recoveries allowed the first cut ends the run: the loop never
// streams again unboundedly, whatever the model does.
func TestStreamErrorWithoutRecoveriesEndsAtOnce(t *testing.T) {
	res, _ := ccRun(t, fixture{script: []fakemodel.Step{forever(cutAfterText)}}, "max_output_recoveries", "0")
	checkSeq(t, res, "M:stream_error", loop.APIError)
}

// A compaction request cut after content fails the compaction at once: no
// non-streaming attempt (observed: compact-stream-error-after-1); cut
// before any content it goes non-streaming (compact-stream-error-after-0).
func TestStreamErrorOnCompactionRequest(t *testing.T) {
	res, m := ccRun(t, fixture{script: []fakemodel.Step{toolStep, ptl, cutAfterText}})
	checkSeq(t, res, "M:tool → next_turn → M:400 → C:stream_error", loop.PromptTooLong)
	assert.Len(t, m.Requests, 3)

	res, m = ccRun(t, fixture{script: []fakemodel.Step{toolStep, ptl, cutBeforeAny, summary, textStep}})
	checkSeq(t, res, "M:tool → next_turn → M:400 → C:stream_error → C → reactive_compact_retry → M:text", loop.Completed)
	assert.Equal(t, []string{"stream 128000", "stream 128000", "stream 128000", "non-streaming 64000", "stream 128000"}, requestFlags(m))
}

// A tool_use cut in its input as the only block: nothing finished, so it
// is a cut before any content (observed: stream-error-mid-tool-input-only).
func TestStreamErrorMidToolInputOnlyGoesNonStreaming(t *testing.T) {
	// input that is not a JSON object never finished ("null" is JSON,
	// but no tool input)
	for _, input := range []string{`{"path":"a.`, `null`} {
		t.Run(input, func(t *testing.T) {
			only := fakemodel.Step{Kind: fakemodel.StreamError, ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: input}}, After: 1}
			tools := &fakemodel.Tools{}
			res, m := ccRun(t, fixture{script: []fakemodel.Step{only, textStep}, tools: tools})
			checkSeq(t, res, "M:stream_error → M:text", loop.Completed)
			assert.Equal(t, []string{"stream 128000", "non-streaming 64000"}, requestFlags(m))
			assert.Empty(t, tools.Calls)
			failed := events[loop.RequestFailed](res.Trace)
			require.Len(t, failed, 1)
			assert.Zero(t, failed[0].Blocks, "the open block was never received")
		})
	}
}
