package timeline

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// AgentRun is a foreign agent's run as the fake server saw it. On a
// timeline the process is named "AGENT: NAME" (NAME alone without an
// agent), the Outcome is shown on the run's slice, times are offsets
// from the server's start (Start is not used), and the slice ends at
// Elapsed or the last request's end, whichever is later.
type AgentRun = wire.AgentRun

// AgentTrack is the track of an agent run's one slice, the whole run.
// Its requests are on RequestTrack, and on RequestLane+k for the k-th
// request served while others were still open; faults, refusals and the
// exit are instants on EventTrack.
const (
	AgentTrack  = 1
	RequestLane = 20
)

// BuildAgents returns the timeline of the agent runs, run k as process
// k+1: the run as a slice, each request a slice from its arrival to when
// the server was through with it (named by purpose and attempt: "main
// #1", "compact #1", "main #2"), each injected fault an instant with its
// kind, and the context size (a main request's input tokens, as the
// server measured it) as a counter.
func BuildAgents(runs []AgentRun) File {
	f := File{DisplayTimeUnit: "ms", TraceEvents: []Event{}}
	for k, run := range runs {
		b := &builder{pid: k + 1}
		b.agentRun(run)
		f.TraceEvents = append(f.TraceEvents, b.events...)
	}
	return f
}

// WriteAgents writes the timeline of the agent runs as trace-event JSON,
// one event a line.
func WriteAgents(w io.Writer, runs []AgentRun) error {
	return writeFile(w, BuildAgents(runs))
}

func (b *builder) agentRun(run AgentRun) {
	name := run.Name
	if run.Agent != "" {
		name = run.Agent + ": " + run.Name
	}
	b.meta(0, "process_name", map[string]any{"name": name})
	b.meta(AgentTrack, "thread_name", map[string]any{"name": "agent run"})
	b.meta(RequestTrack, "thread_name", map[string]any{"name": "requests"})
	b.meta(EventTrack, "thread_name", map[string]any{"name": "events"})
	for _, tid := range []int{AgentTrack, RequestTrack, EventTrack} {
		b.meta(tid, "thread_sort_index", map[string]any{"sort_index": tid})
	}
	end := run.Elapsed
	for _, rec := range run.Records {
		end = max(end, rec.Arrival, rec.Done)
	}
	args := map[string]any{"exit": run.Exit, "requests": len(run.Records)}
	if run.Outcome != "" {
		args["outcome"] = run.Outcome
	}
	b.slice(AgentTrack, "agent run", "agent", 0, end, args)
	attempts := wire.Attempts(run.Records)
	var laneEnds []time.Duration // when each request lane is free again
	for i, rec := range run.Records {
		lane := 0
		for lane < len(laneEnds) && laneEnds[lane] > rec.Arrival {
			lane++
		}
		done := max(rec.Done, rec.Arrival)
		if lane == len(laneEnds) {
			laneEnds = append(laneEnds, done)
			if lane > 0 {
				b.meta(RequestLane+lane, "thread_name", map[string]any{"name": fmt.Sprintf("requests %d", lane+1)})
				b.meta(RequestLane+lane, "thread_sort_index", map[string]any{"sort_index": RequestLane + lane})
			}
		}
		laneEnds[lane] = done
		b.record(rec, attempts[i], lane)
	}
	b.add(Event{Name: fmt.Sprintf("exit %d", run.Exit), Cat: "terminal", Ph: PhaseInstant, Scope: "t", Ts: us(end), Tid: EventTrack,
		Args: map[string]any{"exit": run.Exit}})
}

// record draws one request: its slice on its lane, its fault or refusal
// as an instant when it ends, a main request's size on the counter.
func (b *builder) record(rec wire.Record, attempt, lane int) {
	tid := RequestTrack
	if lane > 0 {
		tid = RequestLane + lane
	}
	purpose := string(rec.Purpose)
	if purpose == "" {
		purpose = "unread"
	}
	args := map[string]any{"seq": rec.Seq, "api": rec.API, "purpose": purpose, "attempt": attempt, "answer": rec.Answer,
		"status": rec.Status, "messages": rec.Messages, "input_tokens": rec.InputTokens, "kept": rec.Kept, "dropped": rec.Dropped,
		"stream": rec.Stream}
	if rec.Model != "" {
		args["model"] = rec.Model
	}
	if rec.MaxTokens > 0 {
		args["max_tokens"] = rec.MaxTokens
	}
	if r := rec.Response; r.StopReason != "" {
		args["stop_reason"] = string(r.StopReason)
		args["usage_input_tokens"] = r.Usage.InputTokens + r.Usage.CacheReadInputTokens + r.Usage.CacheCreationInputTokens
		args["usage_output_tokens"] = r.Usage.OutputTokens
	}
	if rec.Error != "" {
		args["error"] = rec.Error
	}
	done := max(rec.Done, rec.Arrival)
	b.slice(tid, fmt.Sprintf("%s #%d", purpose, attempt), "request", rec.Arrival, done, args)
	if rec.Purpose == loop.PurposeMain && rec.InputTokens > 0 {
		b.add(Event{Name: ContextCounter, Ph: PhaseCounter, Ts: us(rec.Arrival), Args: map[string]any{"tokens": rec.InputTokens}})
	}
	instant := func(name, cat string, args map[string]any) {
		b.add(Event{Name: name, Cat: cat, Ph: PhaseInstant, Scope: "t", Ts: us(done), Tid: EventTrack, Args: args})
	}
	switch kind := rec.FaultKind(); {
	case kind != "":
		fa := map[string]any{"kind": kind, "seq": rec.Seq, "answer": rec.Answer}
		if st, err := strconv.Atoi(rec.Answer); err == nil {
			fa["status"] = st
		}
		instant("fault: "+kind, "fault", fa)
	case rec.Answer == "rejected":
		instant("rejected", "rejected", map[string]any{"seq": rec.Seq, "error": rec.Error})
	case rec.Answer == "fault":
		instant("harness fault", "harness", map[string]any{"seq": rec.Seq, "error": rec.Error})
	}
}
