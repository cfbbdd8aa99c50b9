package otelexport

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// at is a record's arrival and end, in ms on the server's clock.
func at(rec wire.Record, from, to int) wire.Record {
	rec.Arrival, rec.Done = time.Duration(from)*time.Millisecond, time.Duration(to)*time.Millisecond
	return rec
}

// agentRun is a foreign agent's run as the server records it: two 529s
// (the second a retry), a tool call, a prompt too long, a compaction, a
// dropped connection and its retry's final answer, then a request the
// API refused.
func agentRun() AgentRun {
	main := func(seq, msgs, kept int, appended ...string) wire.Record {
		return wire.Record{Seq: seq, API: "messages", Purpose: loop.PurposeMain, Model: "claude-test", MaxTokens: 32000, Stream: true,
			Messages: msgs, Kept: kept, Appended: appended, InputTokens: 1000 * msgs}
	}
	overloaded := func(r wire.Record) wire.Record {
		r.Answer, r.Status, r.ErrorType, r.Fault = "529", 529, "overloaded_error", loop.KindOverloaded
		return r
	}
	r1 := overloaded(main(1, 1, 0, "user:text"))
	r2 := overloaded(main(2, 1, 1))
	r3 := main(3, 1, 1)
	r3.Answer, r3.Status, r3.Blocks = "tool", 200, 1
	r3.Response = loop.Response{StopReason: loop.StopToolUse, Usage: loop.Usage{InputTokens: 900, CacheReadInputTokens: 100, OutputTokens: 40}}
	r4 := main(4, 3, 1, "assistant:tool_use", "user:tool_result")
	r4.Answer, r4.Status, r4.Fault = "400", 400, loop.KindPromptTooLong
	r5 := main(5, 4, 3, "user:text")
	r5.Purpose, r5.Stream, r5.Answer, r5.Status, r5.Blocks = loop.PurposeCompact, false, "text", 200, 1
	r5.Response = loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{InputTokens: 4000, OutputTokens: 300}}
	r6 := main(6, 1, 0, "user:text")
	r6.Dropped, r6.Answer, r6.Fault = 4, "drop", loop.KindConnection
	r7 := main(7, 1, 1)
	r7.Answer, r7.Status, r7.Blocks = "text", 200, 1
	r7.Response = loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{InputTokens: 1000, OutputTokens: 20}}
	r8 := wire.Record{Seq: 8, API: "messages", Answer: "rejected", Status: 400, ErrorType: "invalid_request_error", Error: "messages: field required"}
	return AgentRun{Name: "wire-faults", Agent: "claude-code", Exit: 1, Outcome: "fail", Elapsed: 2 * time.Second,
		Records: []wire.Record{at(r1, 10, 12), at(r2, 510, 511), at(r3, 1500, 1510), at(r4, 1520, 1521),
			at(r5, 1530, 1600), at(r6, 1610, 1620), at(r7, 1700, 1750), at(r8, 1800, 1801)}}
}

// agentInMemory exports agent runs to the SDK's in-memory exporter.
func agentInMemory(t *testing.T, runs ...AgentRun) tracetest.SpanStubs {
	t.Helper()
	exp := keepSpans{tracetest.NewInMemoryExporter()}
	require.NoError(t, RecordAgents(context.Background(), sdktrace.WithSyncer(exp), runs, Options{}))
	return exp.GetSpans()
}

// One trace per run: the invoke_agent span, and a chat span per request
// from its arrival to its end on the server's clock, compaction and
// retries their own spans, with purpose and attempt.
func TestAgentRunSpanTree(t *testing.T) {
	roots := sdkTree(t, agentInMemory(t, agentRun()))
	require.Len(t, roots, 1)
	root := roots[0]
	assert.Equal(t, "invoke_agent claude-code", root.Name)
	assert.Equal(t, int64(0), root.Start)
	assert.Equal(t, int64(2000), root.End, "the run's elapsed time, past the last request")
	assert.Equal(t, map[string]string{AttrOperationName: OpInvokeAgent, AttrAgentName: "claude-code", AttrConversationID: "wire-faults",
		AttrProviderName: ProviderAnthropic, AttrExitCode: "1", AttrRequests: "8", AttrOutcome: "fail", AttrErrorType: "1"}, root.Attrs)
	assert.Equal(t, "Error", root.Status, "a non-zero exit")

	require.Len(t, root.Children, 8)
	var names, purposes, attempts, errs, spans []string
	for _, c := range root.Children {
		names = append(names, c.Name)
		purposes = append(purposes, c.Attrs[AttrPurpose])
		attempts = append(attempts, c.Attrs[AttrAttempt])
		errs = append(errs, c.Attrs[AttrErrorType])
		spans = append(spans, c.Attrs[AttrSeq]+":"+c.Status)
	}
	assert.Equal(t, []string{"chat claude-test", "chat claude-test", "chat claude-test", "chat claude-test", "chat claude-test",
		"chat claude-test", "chat claude-test", "chat"}, names)
	assert.Equal(t, []string{"main", "main", "main", "main", "compact", "main", "main", ""}, purposes)
	assert.Equal(t, []string{"1", "2", "3", "1", "1", "1", "2", "1"}, attempts,
		"a request with the failed one's messages is its retry (the 200 after two 529s is the third attempt)")
	assert.Equal(t, []string{"overloaded", "overloaded", "", "prompt_too_long", "", "connection", "", "rejected"}, errs)
	assert.Equal(t, []string{"1:Error", "2:Error", "3:Unset", "4:Error", "5:Unset", "6:Error", "7:Unset", "8:Error"}, spans)

	tool := root.Children[2]
	assert.Equal(t, int64(1500), tool.Start)
	assert.Equal(t, int64(1510), tool.End)
	assert.Equal(t, "1000", tool.Attrs[AttrUsageInputTokens], "input plus cache read")
	assert.Equal(t, "100", tool.Attrs[AttrUsageCacheRead])
	assert.Equal(t, "40", tool.Attrs[AttrUsageOutputTokens])
	assert.Equal(t, `["tool_use"]`, tool.Attrs[AttrResponseFinishReasons])
	assert.Equal(t, "32000", tool.Attrs[AttrRequestMaxTokens])
	assert.Equal(t, "claude-test", tool.Attrs[AttrRequestModel])
	assert.Equal(t, "true", tool.Attrs[AttrRequestStream])
	assert.Equal(t, "200", tool.Attrs[AttrHTTPStatus])
	assert.Empty(t, tool.Events)

	assert.Equal(t, []string{"loopsim.fault loopsim.fault.kind=overloaded loopsim.fault.status=529 loopsim.wire.answer=529"}, root.Children[0].Events)
	assert.Equal(t, []string{"loopsim.fault loopsim.fault.kind=prompt_too_long loopsim.fault.status=400 loopsim.wire.answer=400"}, root.Children[3].Events)
	assert.Equal(t, []string{"loopsim.fault loopsim.fault.kind=connection loopsim.wire.answer=drop"}, root.Children[5].Events)
	assert.Empty(t, root.Children[7].Events, "a refused request is the agent's error, not an injected fault")
	assert.NotContains(t, root.Children[5].Attrs, AttrUsageInputTokens, "no usage where the server sent none")
}

// Reading the OTLP JSON back gives the SDK's tree; the same runs give the
// same bytes.
func TestAgentRunOTLPJSONReadBack(t *testing.T) {
	write := func() []byte {
		spans, err := AgentSpans(context.Background(), []AgentRun{agentRun()}, Options{})
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, WriteOTLPJSON(&buf, spans))
		return buf.Bytes()
	}
	b := write()
	td, err := ReadOTLPJSON(bytes.NewReader(b))
	require.NoError(t, err)
	assert.Equal(t, sdkTree(t, agentInMemory(t, agentRun())), otlpTree(t, td))
	assert.Equal(t, string(b), string(write()))
}

// Times are the server's observations from the run's start on the wall
// clock; two runs are two traces, and their IDs differ.
func TestAgentRunsWallClockAndTraces(t *testing.T) {
	a, b := agentRun(), agentRun()
	start := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	a.Start, b.Name, b.Exit, b.Outcome = start, "other", 0, "pass"
	spans := agentInMemory(t, a, b)
	traces := map[string]bool{}
	for _, s := range spans {
		traces[s.SpanContext.TraceID().String()] = true
		if s.Name == "invoke_agent claude-code" && attrString(s.Attributes)[AttrConversationID] == "wire-faults" {
			assert.Equal(t, start, s.StartTime)
			assert.Equal(t, start.Add(2*time.Second), s.EndTime)
		}
	}
	assert.Len(t, traces, 2)
	roots := sdkTree(t, spans)
	require.Len(t, roots, 2)
	assert.Equal(t, "Unset", roots[0].Status, "exit 0: %v", roots[0].Attrs)
	assert.NotContains(t, roots[0].Attrs, AttrErrorType)
}

// Each API's requests carry its provider; a run without records is an
// invoke_agent span alone.
func TestAgentRunProviders(t *testing.T) {
	for api, want := range map[string]string{"messages": ProviderAnthropic, "chat": ProviderOpenAI, "responses": ProviderOpenAI, "gemini": ProviderGemini} {
		run := AgentRun{Name: api, Records: []wire.Record{{Seq: 1, API: api, Purpose: loop.PurposeMain, Answer: "text", Status: 200}}}
		roots := sdkTree(t, agentInMemory(t, run))
		require.Len(t, roots, 1)
		assert.Equal(t, want, roots[0].Attrs[AttrProviderName], api)
		assert.Equal(t, "invoke_agent agent", roots[0].Name)
		require.Len(t, roots[0].Children, 1)
		assert.Equal(t, want, roots[0].Children[0].Attrs[AttrProviderName], api)
	}
	roots := sdkTree(t, agentInMemory(t, AgentRun{Name: "none", Error: "exited without calling the server"}))
	require.Len(t, roots, 1)
	assert.Empty(t, roots[0].Children)
	assert.Equal(t, "Error", roots[0].Status)
	assert.Equal(t, ErrorTypeRun, roots[0].Attrs[AttrErrorType])
}
