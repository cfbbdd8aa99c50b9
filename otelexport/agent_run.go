package otelexport

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/internal/simclock"
)

// AgentRun is a foreign agent's run as the fake server saw it. Exported,
// its Name is gen_ai.conversation.id, Agent gen_ai.agent.name, Outcome
// loopsim.agent.outcome, Error the root span's error status, and Start
// (zero: simclock.Epoch) and Elapsed bound the root span.
type AgentRun = wire.AgentRun

// AgentSpans exports the agent runs through an SDK tracer provider of
// its own and returns the finished spans, in the order they ended: one
// trace per run. Trace and span IDs derive from each run's name and
// position, so the same runs give the same IDs.
func AgentSpans(ctx context.Context, runs []AgentRun, opt Options) ([]sdktrace.ReadOnlySpan, error) {
	col := &collector{}
	if err := RecordAgents(ctx, sdktrace.WithSyncer(col), runs, opt); err != nil {
		return nil, err
	}
	return col.spans, nil
}

// RecordAgents exports the agent runs as [Record] exports episodes:
// through a new SDK tracer provider whose spans go to processor, which
// it shuts down.
func RecordAgents(ctx context.Context, processor sdktrace.TracerProviderOption, runs []AgentRun, opt Options) error {
	return provide(ctx, processor, len(runs), func(k int) string { return runs[k].Agent + "\x00" + runs[k].Name },
		func(k int, tracer trace.Tracer) { EmitAgent(ctx, tracer, runs[k], opt) })
}

// EmitAgent records one agent run as spans of tracer: an invoke_agent
// span for the run (the agent's name, exit status and outcome) and a
// chat span per request the server recorded (compaction requests and
// retries each their own; purpose and attempt, by [wire.Attempts], as
// attributes), each failure the server played a loopsim.fault event on
// its request's span. ctx is the parent context.
func EmitAgent(ctx context.Context, tracer trace.Tracer, run AgentRun, opt Options) {
	base := run.Start
	if base.IsZero() {
		base = simclock.Epoch
	}
	agent := run.Agent
	if opt.Agent != "" {
		agent = opt.Agent
	}
	if agent == "" {
		agent = "agent"
	}
	end := run.Elapsed
	for _, rec := range run.Records {
		end = max(end, rec.Arrival, rec.Done)
	}
	attrs := []attribute.KeyValue{
		attribute.String(AttrOperationName, OpInvokeAgent),
		attribute.String(AttrAgentName, agent),
		attribute.String(AttrConversationID, run.Name),
		attribute.Int(AttrExitCode, run.Exit),
		attribute.Int(AttrRequests, len(run.Records)),
	}
	if len(run.Records) > 0 {
		attrs = append(attrs, attribute.String(AttrProviderName, wireProvider(run.Records[0].API, opt)))
	}
	if run.Outcome != "" {
		attrs = append(attrs, attribute.String(AttrOutcome, run.Outcome))
	}
	ctx, root := tracer.Start(ctx, OpInvokeAgent+" "+agent, trace.WithTimestamp(base),
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	attempts := wire.Attempts(run.Records)
	for i, rec := range run.Records {
		emitRecord(ctx, tracer, base, rec, attempts[i], opt)
	}
	switch {
	case run.Exit != 0:
		root.SetAttributes(attribute.String(AttrErrorType, exitType(run.Exit)))
		root.SetStatus(codes.Error, joinNonEmpty(fmt.Sprintf("exit status %d", run.Exit), run.Error))
	case run.Error != "":
		root.SetAttributes(attribute.String(AttrErrorType, ErrorTypeRun))
		root.SetStatus(codes.Error, run.Error)
	}
	root.End(trace.WithTimestamp(base.Add(end)))
}

// emitRecord records one request as a chat span from its arrival to when
// the server was through with it.
func emitRecord(ctx context.Context, tracer trace.Tracer, base time.Time, rec wire.Record, attempt int, opt Options) {
	name := OpChat
	if rec.Model != "" {
		name += " " + rec.Model
	}
	attrs := []attribute.KeyValue{
		attribute.String(AttrOperationName, OpChat),
		attribute.String(AttrProviderName, wireProvider(rec.API, opt)),
	}
	if rec.Model != "" {
		attrs = append(attrs, attribute.String(AttrRequestModel, rec.Model))
	}
	if rec.MaxTokens > 0 {
		attrs = append(attrs, attribute.Int(AttrRequestMaxTokens, rec.MaxTokens))
	}
	if rec.Purpose != "" {
		attrs = append(attrs, attribute.String(AttrPurpose, string(rec.Purpose)))
	}
	attrs = append(attrs,
		attribute.Int(AttrAttempt, attempt),
		attribute.Int(AttrSeq, rec.Seq),
		attribute.String(AttrWireAPI, rec.API),
		attribute.Bool(AttrRequestStream, rec.Stream),
		attribute.Int(AttrMessages, rec.Messages),
		attribute.Int(AttrEstimatedInput, rec.InputTokens),
		attribute.Int(AttrKept, rec.Kept),
		attribute.Int(AttrDroppedMessages, rec.Dropped),
		attribute.String(AttrAnswer, rec.Answer),
	)
	if rec.Status != 0 {
		attrs = append(attrs, attribute.Int(AttrHTTPStatus, rec.Status))
	}
	if rec.ClientGone {
		attrs = append(attrs, attribute.Bool(AttrClientGone, true))
	}
	if r := rec.Response; r.StopReason != "" {
		u := r.Usage
		attrs = append(attrs,
			attribute.Int(AttrUsageInputTokens, u.InputTokens+u.CacheReadInputTokens+u.CacheCreationInputTokens),
			attribute.Int(AttrUsageOutputTokens, u.OutputTokens),
			attribute.StringSlice(AttrResponseFinishReasons, []string{string(r.StopReason)}),
			attribute.Int(AttrBlocks, rec.Blocks))
		if u.CacheReadInputTokens > 0 {
			attrs = append(attrs, attribute.Int(AttrUsageCacheRead, u.CacheReadInputTokens))
		}
		if u.CacheCreationInputTokens > 0 {
			attrs = append(attrs, attribute.Int(AttrUsageCacheCreation, u.CacheCreationInputTokens))
		}
	}
	start := base.Add(rec.Arrival)
	end := base.Add(max(rec.Done, rec.Arrival))
	_, s := tracer.Start(ctx, name, trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	if kind := rec.FaultKind(); kind != "" {
		ev := []attribute.KeyValue{attribute.String(AttrFaultKind, kind), attribute.String(AttrAnswer, rec.Answer)}
		if st, err := strconv.Atoi(rec.Answer); err == nil {
			ev = append(ev, attribute.Int(AttrFaultStatus, st))
		}
		s.AddEvent(EventFault, trace.WithTimestamp(end), trace.WithAttributes(ev...))
	}
	if typ := wireErrorType(rec); typ != "" {
		s.SetAttributes(attribute.String(AttrErrorType, typ))
		s.SetStatus(codes.Error, joinNonEmpty(rec.Label(), rec.Error))
	}
	s.End(trace.WithTimestamp(end))
}

// wireErrorType is error.type of a request that did not get a reply: the
// failure's kind, rejected (the request broke the API's rules),
// harness_fault, client_gone or abort; empty for a reply.
func wireErrorType(rec wire.Record) string {
	switch {
	case rec.Fault != "":
		return string(rec.Fault)
	case rec.Answer == "rejected":
		return ErrorTypeRejected
	case rec.Answer == "fault":
		return ErrorTypeHarness
	case rec.Answer == "gone":
		return ErrorTypeClientGone
	case rec.Answer == "abort":
		return "abort"
	}
	return ""
}

// wireProvider is gen_ai.provider.name of a request to api: Options's
// Provider when set, else the provider whose API it is.
func wireProvider(api string, opt Options) string {
	if opt.Provider != "" {
		return opt.Provider
	}
	switch api {
	case "messages":
		return ProviderAnthropic
	case "chat", "responses":
		return ProviderOpenAI
	case "gemini":
		return ProviderGemini
	}
	return api
}

// exitType is error.type of a run that exited with a non-zero status:
// the status, or killed.
func exitType(exit int) string {
	if exit < 0 {
		return "killed"
	}
	return strconv.Itoa(exit)
}

func joinNonEmpty(a, b string) string {
	if b == "" {
		return a
	}
	return a + ": " + b
}
