package timeline

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// agentRun is a foreign agent's run as the server records it (times in
// ms): a 529 and its retry's tool call, a prompt too long, a compaction,
// a title request that overlaps the next main request, a dropped
// connection and the retry's answer, then a refused request.
func agentRun() AgentRun {
	rec := func(seq int, purpose loop.Purpose, msgs, kept int, answer string, fault loop.ErrorKind, from, to int, appended ...string) wire.Record {
		r := wire.Record{Seq: seq, API: "chat", Purpose: purpose, Model: "gpt-test", MaxTokens: 4096, Messages: msgs, Kept: kept,
			Appended: appended, Answer: answer, Fault: fault, InputTokens: 1000 * msgs,
			Arrival: time.Duration(from) * time.Millisecond, Done: time.Duration(to) * time.Millisecond}
		if fault == "" {
			r.Status = 200
			r.Response = loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{InputTokens: 1000 * msgs, OutputTokens: 10}}
		}
		return r
	}
	m, c := loop.PurposeMain, loop.PurposeCompact
	return AgentRun{Name: "wire-faults", Agent: "codex", Exit: 0, Outcome: "pass", Elapsed: 3 * time.Second, Records: []wire.Record{
		rec(1, m, 1, 0, "529", loop.KindOverloaded, 10, 20, "user:text"),
		rec(2, m, 1, 1, "tool", "", 500, 600),
		rec(3, m, 3, 1, "400", loop.KindPromptTooLong, 700, 710, "assistant:tool", "user:tool_result"),
		rec(4, c, 4, 3, "text", "", 720, 900, "user:text"),
		rec(5, m, 1, 0, "text", "", 950, 1200, "user:text"), // a side request, still open when the next arrives
		rec(6, m, 1, 0, "drop", loop.KindConnection, 1000, 1100, "user:text"),
		rec(7, m, 1, 1, "trunc", "", 1300, 1400),
		{Seq: 8, API: "chat", Answer: "rejected", Status: 400, Error: "messages: required", Arrival: 1500 * time.Millisecond, Done: 1501 * time.Millisecond},
	}}
}

func TestAgentRunTimeline(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteAgents(&buf, []AgentRun{agentRun()}))
	phases := checkFormat(t, buf.Bytes())
	for _, ph := range []string{PhaseComplete, PhaseInstant, PhaseCounter, PhaseMetadata} {
		assert.Positive(t, phases[ph], "phase %s", ph)
	}

	f := BuildAgents([]AgentRun{agentRun()})
	var requests, lanes, instants, names []string
	var counters []any
	var run Event
	for _, e := range f.TraceEvents {
		switch {
		case e.Ph == PhaseComplete && e.Tid == AgentTrack:
			run = e
		case e.Ph == PhaseComplete:
			requests = append(requests, e.Name)
			lanes = append(lanes, map[int]string{RequestTrack: "1", RequestLane + 1: "2"}[e.Tid])
		case e.Ph == PhaseInstant:
			instants = append(instants, e.Name)
		case e.Ph == PhaseCounter:
			counters = append(counters, e.Args["tokens"])
		case e.Ph == PhaseMetadata && e.Name != "thread_sort_index":
			names = append(names, e.Args["name"].(string))
		}
	}
	assert.Equal(t, []string{"codex: wire-faults", "agent run", "requests", "events", "requests 2"}, names)
	assert.Equal(t, int64(0), run.Ts)
	assert.Equal(t, int64(3_000_000), *run.Dur, "the run's elapsed time, in µs")
	assert.Equal(t, map[string]any{"exit": 0, "outcome": "pass", "requests": 8}, run.Args)
	assert.Equal(t, []string{"main #1", "main #2", "main #1", "compact #1", "main #1", "main #1", "main #2", "unread #1"}, requests,
		"named by purpose and attempt")
	assert.Equal(t, []string{"1", "1", "1", "1", "1", "2", "1", "1"}, lanes, "the request that overlaps an open one gets a lane of its own")
	assert.Equal(t, []string{"fault: overloaded", "fault: prompt_too_long", "fault: connection", "fault: truncated", "rejected", "exit 0"}, instants)
	assert.Equal(t, []any{1000, 1000, 3000, 1000, 1000, 1000}, counters, "each main request's size; not the compaction's")
}

// A request's slice carries what the server recorded, its fault the
// instant at its end.
func TestAgentRunRequestArgs(t *testing.T) {
	f := BuildAgents([]AgentRun{agentRun()})
	var overloaded, fault Event
	for _, e := range f.TraceEvents {
		if e.Ph == PhaseComplete && e.Args["seq"] == 1 {
			overloaded = e
		}
		if e.Name == "fault: overloaded" {
			fault = e
		}
	}
	assert.Equal(t, int64(10_000), overloaded.Ts)
	assert.Equal(t, int64(10_000), *overloaded.Dur)
	assert.Equal(t, "529", overloaded.Args["answer"])
	assert.Equal(t, "gpt-test", overloaded.Args["model"])
	assert.Equal(t, 4096, overloaded.Args["max_tokens"])
	assert.NotContains(t, overloaded.Args, "stop_reason", "no answer's end for a failure")
	assert.Equal(t, int64(20_000), fault.Ts)
	assert.Equal(t, map[string]any{"kind": "overloaded", "seq": 1, "answer": "529", "status": 529}, fault.Args)
}

// Two runs are two processes; no run is an empty timeline.
func TestAgentRunsProcesses(t *testing.T) {
	b, o := agentRun(), agentRun()
	o.Agent, o.Records = "", nil
	f := BuildAgents([]AgentRun{b, o})
	procs := map[int]bool{}
	for _, e := range f.TraceEvents {
		procs[e.Pid] = true
	}
	assert.Len(t, procs, 2)
	assert.Empty(t, BuildAgents(nil).TraceEvents)
}
