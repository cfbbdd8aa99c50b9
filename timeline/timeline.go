package timeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/loopsim/loopsim/internal/simclock"
	"github.com/loopsim/loopsim/loop"
)

// Episode is one run to draw: its name (the process's name) and trace.
type Episode struct {
	Name  string
	Trace loop.Trace
}

// The tracks (thread IDs) of an episode's process. A batch's k-th tool
// call is on track ToolTrack+k, so calls running side by side do not
// overlap on one track.
const (
	IterationTrack = 1
	RequestTrack   = 2
	EventTrack     = 3
	ToolTrack      = 10
)

// Phases of the trace-event format this package writes.
const (
	PhaseComplete = "X" // a slice with a duration
	PhaseInstant  = "i"
	PhaseCounter  = "C"
	PhaseMetadata = "M"
)

// ContextCounter is the counter track's name: the context size in tokens.
const ContextCounter = "context tokens"

// Event is one trace event. Ts and Dur are microseconds.
type Event struct {
	Name  string         `json:"name"`
	Cat   string         `json:"cat,omitempty"`
	Ph    string         `json:"ph"`
	Ts    int64          `json:"ts"`
	Dur   *int64         `json:"dur,omitempty"`
	Pid   int            `json:"pid"`
	Tid   int            `json:"tid"`
	Scope string         `json:"s,omitempty"`
	Args  map[string]any `json:"args,omitempty"`
}

// File is the JSON object written: the events and the display unit.
type File struct {
	TraceEvents     []Event `json:"traceEvents"`
	DisplayTimeUnit string  `json:"displayTimeUnit"`
}

// Build returns the timeline of the episodes, episode k as process k+1.
func Build(eps []Episode) File {
	f := File{DisplayTimeUnit: "ms", TraceEvents: []Event{}}
	for k, ep := range eps {
		b := &builder{pid: k + 1}
		b.episode(ep)
		f.TraceEvents = append(f.TraceEvents, b.events...)
	}
	return f
}

// Write writes the timeline of the episodes as trace-event JSON, one
// event a line.
func Write(w io.Writer, eps []Episode) error {
	return writeFile(w, Build(eps))
}

// writeFile writes f as trace-event JSON, one event a line.
func writeFile(w io.Writer, f File) error {
	if _, err := io.WriteString(w, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"); err != nil {
		return fmt.Errorf("timeline: write: %w", err)
	}
	for i, e := range f.TraceEvents {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("timeline: encode event %d (%s): %w", i, e.Name, err)
		}
		b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if i < len(f.TraceEvents)-1 {
			b = append(b, ',')
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("timeline: write: %w", err)
		}
	}
	if _, err := io.WriteString(w, "]}\n"); err != nil {
		return fmt.Errorf("timeline: write: %w", err)
	}
	return nil
}

// builder draws one episode.
type builder struct {
	pid    int
	events []Event
	at     []time.Duration
	// iterStart is the open iteration's start and number (0: none).
	iter      int
	iterStart time.Duration
	// req is the open request's index in events (-1: none).
	req int
	// tools maps a running tool_use ID to its slot and start.
	tools    map[string]toolSlot
	maxSlots int
}

type toolSlot struct {
	slot  int
	start time.Duration
}

func us(d time.Duration) int64 { return d.Microseconds() }

func (b *builder) add(e Event) {
	e.Pid = b.pid
	b.events = append(b.events, e)
}

func (b *builder) slice(tid int, name, cat string, start, end time.Duration, args map[string]any) {
	d := us(end - start)
	b.add(Event{Name: name, Cat: cat, Ph: PhaseComplete, Ts: us(start), Dur: &d, Tid: tid, Args: args})
}

func (b *builder) instant(i int, name, cat string, args map[string]any) {
	b.add(Event{Name: name, Cat: cat, Ph: PhaseInstant, Scope: "t", Ts: us(b.at[i]), Tid: EventTrack, Args: args})
}

func (b *builder) counter(i, tokens int) {
	b.add(Event{Name: ContextCounter, Ph: PhaseCounter, Ts: us(b.at[i]), Tid: 0, Args: map[string]any{"tokens": tokens}})
}

func (b *builder) meta(tid int, name string, args map[string]any) {
	b.add(Event{Name: name, Ph: PhaseMetadata, Tid: tid, Args: args})
}

func (b *builder) episode(ep Episode) {
	var end time.Duration
	b.at, end = simclock.Offsets(ep.Trace)
	b.req, b.tools = -1, map[string]toolSlot{}
	b.meta(0, "process_name", map[string]any{"name": ep.Name})
	b.meta(IterationTrack, "thread_name", map[string]any{"name": "iterations"})
	b.meta(RequestTrack, "thread_name", map[string]any{"name": "requests"})
	b.meta(EventTrack, "thread_name", map[string]any{"name": "events"})
	for _, tid := range []int{IterationTrack, RequestTrack, EventTrack} {
		b.meta(tid, "thread_sort_index", map[string]any{"sort_index": tid})
	}
	for i, e := range ep.Trace {
		b.event(i, e)
	}
	b.closeIteration(end)
	if b.req >= 0 {
		b.endRequest(end)
	}
	for _, id := range sortedKeys(b.tools) {
		ts := b.tools[id]
		b.slice(ToolTrack+ts.slot, id, "tool", ts.start, end, map[string]any{"tool_use_id": id, "result": "none"})
	}
	for k := range b.maxSlots {
		b.meta(ToolTrack+k, "thread_name", map[string]any{"name": fmt.Sprintf("tools %d", k+1)})
		b.meta(ToolTrack+k, "thread_sort_index", map[string]any{"sort_index": ToolTrack + k})
	}
}

func (b *builder) closeIteration(end time.Duration) {
	if b.iter == 0 {
		return
	}
	b.slice(IterationTrack, fmt.Sprintf("iteration %d", b.iter), "iteration", b.iterStart, end, map[string]any{"iteration": b.iter})
	b.iter = 0
}

// endRequest sets the open request slice's end.
func (b *builder) endRequest(end time.Duration) {
	e := &b.events[b.req]
	d := us(end) - e.Ts
	e.Dur = &d
	b.req = -1
}

// event records the i-th event of the trace: one case a kind of event,
// the longer ones in a method each.
func (b *builder) event(i int, ev loop.Event) {
	t := b.at[i]
	switch x := ev.(type) {
	case loop.IterationStart:
		b.closeIteration(t)
		b.iter, b.iterStart = x.Iteration, t
	case loop.Stage:
		b.counter(i, x.TokensAfter)
		if x.Error != "" {
			b.instant(i, "fault: stage "+string(x.Stage), "fault", map[string]any{"error": x.Error})
		}
	case loop.Compaction:
		b.compaction(i, x)
	case loop.RequestEvent:
		b.startRequest(i, x)
	case loop.ResponseEvent:
		b.response(i, x)
	case loop.RequestFailed:
		b.requestFailed(i, x)
	case loop.Retry:
		b.instant(i, fmt.Sprintf("retry #%d", x.Attempt), "retry", map[string]any{"reason": string(x.Reason), "delay_ms": x.DelayMS})
	case loop.Fallback:
		b.instant(i, "fallback "+x.From+" -> "+x.To, "fallback", map[string]any{"from": x.From, "to": x.To})
	case loop.Withheld:
		b.instant(i, "withheld "+string(x.Kind), "withheld", map[string]any{"message": x.Message})
	case loop.ToolBatch:
		for k, id := range x.ToolUses {
			b.tools[id] = toolSlot{slot: k, start: t}
			b.maxSlots = max(b.maxSlots, k+1)
		}
	case loop.ToolResultEvent:
		b.toolResult(i, x)
	case loop.StopHook:
		b.instant(i, "stop hook "+string(x.Outcome), "hook", map[string]any{"blocks_in_row": x.BlocksInRow})
		if x.Outcome == loop.HookFail {
			b.instant(i, "fault: stop hook", "fault", map[string]any{"error": x.Error})
		}
	case loop.StopFailureHook:
		b.instant(i, "stop-failure hook", "hook", map[string]any{"error": x.Error, "ran": x.Ran})
	case loop.TransitionEvent:
		b.instant(i, "=> "+string(x.Transition), "transition", map[string]any{"changes": len(x.Changes)})
	case loop.StateRecord:
		b.counter(i, x.Messages.Tokens)
	case loop.TerminalEvent:
		b.instant(i, "terminal "+string(x.Terminal), "terminal", map[string]any{"turn": x.Turn, "iterations": x.Iterations})
	}
}

// compaction records a compaction as an instant, and the context it
// left.
func (b *builder) compaction(i int, x loop.Compaction) {
	args := map[string]any{"trigger": string(x.Trigger), "ok": x.OK, "tokens_before": x.TokensBefore, "tokens_after": x.TokensAfter}
	if x.Skipped != "" {
		args["skipped"] = x.Skipped
	}
	if x.Error != "" {
		args["error"] = x.Error
	}
	b.instant(i, "compaction "+string(x.Trigger), "compaction", args)
	if x.OK {
		b.counter(i, x.TokensAfter)
	}
}

// startRequest records a request as a slice on the request track, open
// until its outcome (a request left without one ends here), and a main
// request's input as the context.
func (b *builder) startRequest(i int, x loop.RequestEvent) {
	t := b.at[i]
	if b.req >= 0 {
		b.endRequest(t)
	}
	b.req = len(b.events)
	b.slice(RequestTrack, fmt.Sprintf("%s #%d", x.Purpose, x.Attempt), "request", t, t, map[string]any{
		"model": x.Model, "purpose": string(x.Purpose), "attempt": x.Attempt, "max_tokens": x.MaxTokens,
		"input_tokens": x.InputTokens, "messages": x.Messages})
	if x.Purpose == loop.PurposeMain {
		b.counter(i, x.InputTokens)
	}
}

// response records a reply: its stop reason and usage on the open
// request, which it ends.
func (b *builder) response(i int, x loop.ResponseEvent) {
	t := b.at[i]
	if b.req >= 0 {
		a := b.events[b.req].Args
		a["stop_reason"], a["usage_input_tokens"], a["usage_output_tokens"] = string(x.StopReason), x.Usage.InputTokens+x.Usage.CacheReadInputTokens+x.Usage.CacheCreationInputTokens, x.Usage.OutputTokens
		b.endRequest(t)
	}
}

// requestFailed records a failed request: its error on the open request,
// which it ends, and a fault instant.
func (b *builder) requestFailed(i int, x loop.RequestFailed) {
	t := b.at[i]
	if b.req >= 0 {
		a := b.events[b.req].Args
		a["error"], a["error_kind"] = x.Message, string(x.Kind)
		b.endRequest(t)
	}
	b.instant(i, "fault: "+string(x.Kind), "fault", map[string]any{"kind": string(x.Kind), "status": x.Status, "message": x.Message})
}

// toolResult records a tool's run as a slice on its slot's track, from
// its batch to its result, and its error as a fault instant.
func (b *builder) toolResult(i int, x loop.ToolResultEvent) {
	t := b.at[i]
	ts, ok := b.tools[x.ToolUseID]
	if !ok {
		ts = toolSlot{start: t}
		b.maxSlots = max(b.maxSlots, 1)
	}
	delete(b.tools, x.ToolUseID)
	name := x.Name
	if name == "" {
		name = x.ToolUseID
	}
	args := map[string]any{"tool_use_id": x.ToolUseID, "tokens": x.Tokens, "is_error": x.IsError, "synthetic": x.Synthetic}
	if x.Error != "" {
		args["error"] = x.Error
		b.instant(i, "fault: tool "+name, "fault", map[string]any{"tool_use_id": x.ToolUseID, "error": x.Error})
	}
	b.slice(ToolTrack+ts.slot, name, "tool", ts.start, t, args)
}

func sortedKeys(m map[string]toolSlot) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
