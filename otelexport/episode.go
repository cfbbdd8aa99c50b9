package otelexport

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/loopsim/loopsim/internal/simclock"
	"github.com/loopsim/loopsim/loop"
)

// Episode is one run to export: its trace and what names it.
type Episode struct {
	// Name names the run: the scenario's name, or the setting and seed of
	// a replayed episode. It is gen_ai.agent.name's companion
	// gen_ai.conversation.id, and it seeds the trace ID.
	Name  string
	Trace loop.Trace
}

// Options say how episodes are exported.
type Options struct {
	// Provider is gen_ai.provider.name on every span; empty means
	// "anthropic" (the loop models Claude Code's, and its catalog is
	// Anthropic's models).
	Provider string
	// Agent is gen_ai.agent.name; empty means "loopsim".
	Agent string
}

func (o Options) provider() string {
	if o.Provider == "" {
		return "anthropic"
	}
	return o.Provider
}

func (o Options) agent() string {
	if o.Agent == "" {
		return "loopsim"
	}
	return o.Agent
}

// okTerminals are the terminals that end a run without an error.
var okTerminals = map[loop.Terminal]bool{
	loop.Completed:         true,
	loop.MaxTurns:          true,
	loop.HookStopped:       true,
	loop.StopHookPrevented: true,
}

// emitter turns one episode's events into spans.
type emitter struct {
	tracer trace.Tracer
	opt    Options
	ctx    context.Context // carries the root span
	root   trace.Span
	at     []time.Duration
	iter   int
	// req is the open chat span, nil between requests.
	req trace.Span
	// batchAt is when each tool_use of the running batch started.
	batchAt map[string]time.Time
}

// Emit records one episode as spans of tracer, with simulated times.
// ctx is the parent context (its span, if any, is the root's parent).
func Emit(ctx context.Context, tracer trace.Tracer, ep Episode, opt Options) {
	at, end := simclock.Offsets(ep.Trace)
	e := &emitter{tracer: tracer, opt: opt, at: at, batchAt: map[string]time.Time{}}
	ctx, e.root = tracer.Start(ctx, OpInvokeAgent+" "+opt.agent(),
		trace.WithTimestamp(simclock.Epoch),
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(
			attribute.String(AttrOperationName, OpInvokeAgent),
			attribute.String(AttrProviderName, opt.provider()),
			attribute.String(AttrAgentName, opt.agent()),
			attribute.String(AttrConversationID, ep.Name),
		))
	e.ctx = ctx
	halted := true
	for i, ev := range ep.Trace {
		if _, ok := ev.(loop.TerminalEvent); ok {
			halted = false
		}
		e.event(i, ev)
	}
	endAt := simclock.Epoch.Add(end)
	if e.req != nil {
		e.req.End(trace.WithTimestamp(endAt))
	}
	e.openTools(endAt)
	if halted {
		e.root.SetAttributes(attribute.Bool(AttrHalted, true))
	}
	e.root.End(trace.WithTimestamp(endAt))
}

func (e *emitter) time(i int) time.Time { return simclock.Epoch.Add(e.at[i]) }

// note adds an event to the root span at event i's time.
func (e *emitter) note(i int, name string, attrs ...attribute.KeyValue) {
	e.root.AddEvent(name, trace.WithTimestamp(e.time(i)), trace.WithAttributes(attrs...))
}

// fault adds a loopsim.fault event to span s.
func (e *emitter) fault(s trace.Span, i int, kind, message string, attrs ...attribute.KeyValue) {
	attrs = append([]attribute.KeyValue{attribute.String(AttrFaultKind, kind), attribute.String(AttrMessage, message)}, attrs...)
	s.AddEvent(EventFault, trace.WithTimestamp(e.time(i)), trace.WithAttributes(attrs...))
}

// event records the i-th event of the trace: one case a kind of event,
// the longer ones in a method each.
func (e *emitter) event(i int, ev loop.Event) {
	t := e.time(i)
	switch x := ev.(type) {
	case loop.IterationStart:
		e.iter = x.Iteration
		e.note(i, EventIteration, attribute.Int(AttrIteration, x.Iteration), attribute.Int(AttrTurn, x.Turn), attribute.Int(AttrHistory, x.Messages))
	case loop.Stage:
		e.note(i, EventStage, attribute.String(AttrStage, string(x.Stage)), attribute.Int(AttrTokensBefore, x.TokensBefore), attribute.Int(AttrTokensAfter, x.TokensAfter))
		if x.Error != "" {
			e.fault(e.root, i, "stage_"+string(x.Stage), x.Error)
		}
	case loop.Compaction:
		e.compaction(i, x)
	case loop.RequestEvent:
		e.startRequest(i, x)
	case loop.ResponseEvent:
		e.response(i, x)
	case loop.RequestFailed:
		e.requestFailed(i, x)
	case loop.Retry:
		e.note(i, EventRetry, attribute.Int(AttrAttempt, x.Attempt), attribute.String(AttrRetryReason, string(x.Reason)),
			attribute.Int(AttrDelayMS, x.DelayMS), attribute.Bool(AttrNonStreaming, x.NonStreaming))
	case loop.Fallback:
		e.note(i, EventFallback, attribute.String(AttrFrom, x.From), attribute.String(AttrTo, x.To), attribute.String(AttrDropped, x.Dropped))
	case loop.Withheld:
		e.note(i, EventWithheld, attribute.String(AttrWithheldKind, string(x.Kind)), attribute.String(AttrMessage, x.Message))
	case loop.ErrorEmitted:
		e.note(i, EventErrorShown, attribute.String(AttrMessage, x.Message))
	case loop.Notice:
		e.note(i, EventNotice, attribute.String(AttrMessage, x.Text))
	case loop.ToolSummary:
		e.note(i, EventToolSummary, attribute.String(AttrMessage, x.Text), attribute.Bool("loopsim.tool_use_summary.unsent", x.Unsent))
		if x.Error != "" {
			e.fault(e.root, i, "tool_use_summary_failed", x.Error)
		}
	case loop.ToolBatch:
		for _, id := range x.ToolUses {
			e.batchAt[id] = t
		}
	case loop.ToolResultEvent:
		e.tool(i, x)
	case loop.StopHook:
		e.stopHook(i, x)
	case loop.StopFailureHook:
		e.note(i, EventStopFailure, attribute.String(AttrMessage, x.Error), attribute.Bool("loopsim.stop_failure_hook.ran", x.Ran))
		if x.Failure != "" {
			e.fault(e.root, i, "stop_failure_hook_failed", x.Failure)
		}
	case loop.TransitionEvent:
		e.transition(i, x)
	case loop.TerminalEvent:
		e.terminal(i, x)
	}
}

// compaction records a compaction as an event, and its failure as a
// fault.
func (e *emitter) compaction(i int, x loop.Compaction) {
	attrs := []attribute.KeyValue{attribute.String(AttrTrigger, string(x.Trigger)), attribute.Bool(AttrOK, x.OK),
		attribute.Int(AttrTokensBefore, x.TokensBefore), attribute.Int(AttrTokensAfter, x.TokensAfter)}
	if x.Skipped != "" {
		attrs = append(attrs, attribute.String(AttrSkipped, x.Skipped))
	}
	if x.Error != "" {
		attrs = append(attrs, attribute.String(AttrMessage, x.Error))
	}
	e.note(i, EventCompaction, attrs...)
	if x.Error != "" {
		e.fault(e.root, i, "compaction_failed", x.Error)
	}
}

// startRequest records a request as a client span, open until its
// outcome; a request left without one is closed here.
func (e *emitter) startRequest(i int, x loop.RequestEvent) {
	t := e.time(i)
	if e.req != nil { // a request without an outcome: close it here
		e.req.End(trace.WithTimestamp(t))
	}
	attrs := []attribute.KeyValue{
		attribute.String(AttrOperationName, OpChat),
		attribute.String(AttrProviderName, e.opt.provider()),
		attribute.String(AttrRequestModel, x.Model),
		attribute.Int(AttrRequestMaxTokens, x.MaxTokens),
		attribute.String(AttrPurpose, string(x.Purpose)),
		attribute.Int(AttrAttempt, x.Attempt),
		attribute.Int(AttrIteration, e.iter),
		attribute.Int(AttrMessages, x.Messages),
		attribute.Int(AttrEstimatedInput, x.InputTokens),
	}
	if x.NonStreaming {
		attrs = append(attrs, attribute.Bool(AttrNonStreaming, true))
	}
	_, e.req = e.tracer.Start(e.ctx, OpChat+" "+x.Model, trace.WithTimestamp(t),
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// response records a reply: its usage and finish reason on the request's
// span, which it closes.
func (e *emitter) response(i int, x loop.ResponseEvent) {
	t := e.time(i)
	s := e.request(t)
	u := x.Usage
	s.SetAttributes(
		attribute.Int(AttrUsageInputTokens, u.InputTokens+u.CacheReadInputTokens+u.CacheCreationInputTokens),
		attribute.Int(AttrUsageOutputTokens, u.OutputTokens),
		attribute.StringSlice(AttrResponseFinishReasons, []string{string(x.StopReason)}),
		attribute.Int(AttrBlocks, x.Blocks),
	)
	if u.CacheReadInputTokens > 0 {
		s.SetAttributes(attribute.Int(AttrUsageCacheRead, u.CacheReadInputTokens))
	}
	if u.CacheCreationInputTokens > 0 {
		s.SetAttributes(attribute.Int(AttrUsageCacheCreation, u.CacheCreationInputTokens))
	}
	s.End(trace.WithTimestamp(t))
	e.req = nil
}

// requestFailed records a failed request: a fault on the request's span,
// which it closes with an error status.
func (e *emitter) requestFailed(i int, x loop.RequestFailed) {
	t := e.time(i)
	s := e.request(t)
	var extra []attribute.KeyValue
	if x.Status != 0 {
		extra = append(extra, attribute.Int(AttrFaultStatus, x.Status))
	}
	e.fault(s, i, string(x.Kind), x.Message, extra...)
	s.SetAttributes(attribute.String(AttrErrorType, string(x.Kind)), attribute.Int(AttrBlocks, x.Blocks))
	s.SetStatus(codes.Error, x.Message)
	s.End(trace.WithTimestamp(t))
	e.req = nil
}

// stopHook records the stop hooks' outcome as an event, a failure as a
// fault.
func (e *emitter) stopHook(i int, x loop.StopHook) {
	attrs := []attribute.KeyValue{attribute.String(AttrHookOutcome, string(x.Outcome)), attribute.Bool(AttrHookActive, x.StopHookActive),
		attribute.Int(AttrHookBlocksInRow, x.BlocksInRow)}
	if len(x.Messages) > 0 {
		attrs = append(attrs, attribute.StringSlice(AttrMessage, x.Messages))
	}
	e.note(i, EventStopHook, attrs...)
	if x.Outcome == loop.HookFail {
		e.fault(e.root, i, "stop_hook_failed", x.Error)
	}
}

// transition records a transition as an event with the state fields it
// changed.
func (e *emitter) transition(i int, x loop.TransitionEvent) {
	changes := make([]string, len(x.Changes))
	for k, c := range x.Changes {
		changes[k] = fmt.Sprintf("%s: %s -> %s", c.Field, c.From, c.To)
	}
	attrs := []attribute.KeyValue{attribute.String(AttrTransition, string(x.Transition)), attribute.StringSlice(AttrChanges, changes)}
	if x.Dropped != "" {
		attrs = append(attrs, attribute.String(AttrDropped, x.Dropped))
	}
	e.note(i, EventTransition, attrs...)
}

// terminal records the run's end on the root span, an error status for a
// terminal that is not an ordinary end.
func (e *emitter) terminal(i int, x loop.TerminalEvent) {
	e.root.SetAttributes(attribute.String(AttrTerminal, string(x.Terminal)), attribute.Int(AttrTurns, x.Turn), attribute.Int(AttrIterations, x.Iterations))
	if !okTerminals[x.Terminal] {
		e.root.SetAttributes(attribute.String(AttrErrorType, string(x.Terminal)))
		e.root.SetStatus(codes.Error, strings.TrimSpace(string(x.Terminal)+": "+x.Message))
	}
}

// request returns the open chat span, or, for an outcome without a
// request (not something the loop writes), a zero-length one.
func (e *emitter) request(t time.Time) trace.Span {
	if e.req != nil {
		return e.req
	}
	_, s := e.tracer.Start(e.ctx, OpChat, trace.WithTimestamp(t), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String(AttrOperationName, OpChat), attribute.String(AttrProviderName, e.opt.provider())))
	return s
}

// tool records one tool call as an execute_tool span from its batch's
// start (or its result, for a result no batch announced) to its result.
func (e *emitter) tool(i int, x loop.ToolResultEvent) {
	t := e.time(i)
	start, ok := e.batchAt[x.ToolUseID]
	if !ok {
		start = t
	}
	delete(e.batchAt, x.ToolUseID)
	name := OpExecuteTool
	if x.Name != "" {
		name += " " + x.Name
	}
	_, s := e.tracer.Start(e.ctx, name, trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(
			attribute.String(AttrOperationName, OpExecuteTool),
			attribute.String(AttrToolName, x.Name),
			attribute.String(AttrToolCallID, x.ToolUseID),
			attribute.Int(AttrIteration, e.iter),
			attribute.Int(AttrToolTokens, x.Tokens),
		))
	if x.Synthetic {
		s.SetAttributes(attribute.Bool(AttrToolSynthetic, true))
	}
	if x.Error != "" {
		e.fault(s, i, ErrorTypeTool, x.Error)
	}
	if x.IsError || x.Error != "" {
		s.SetAttributes(attribute.String(AttrErrorType, ErrorTypeTool))
		s.SetStatus(codes.Error, x.Error)
	}
	s.End(trace.WithTimestamp(t))
}

// openTools ends the tool calls of a batch that got no result (the run
// ended first), in the order of their IDs.
func (e *emitter) openTools(end time.Time) {
	ids := make([]string, 0, len(e.batchAt))
	for id := range e.batchAt {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		_, s := e.tracer.Start(e.ctx, OpExecuteTool, trace.WithTimestamp(e.batchAt[id]), trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithAttributes(attribute.String(AttrOperationName, OpExecuteTool), attribute.String(AttrToolCallID, id)))
		s.End(trace.WithTimestamp(end))
	}
}
