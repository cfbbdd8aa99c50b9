package otelexport

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// ServiceName is service.name on the resource of every exported span.
const ServiceName = "loopsim"

// TracerName is the instrumentation scope of the spans.
const TracerName = "github.com/loopsim/loopsim/otelexport"

// Spans exports the episodes through an SDK tracer provider of its own
// and returns the finished spans, in the order they ended. Trace and
// span IDs derive from each episode's name and position, so the same
// episodes give the same spans.
func Spans(ctx context.Context, eps []Episode, opt Options) ([]sdktrace.ReadOnlySpan, error) {
	col := &collector{}
	if err := Record(ctx, sdktrace.WithSyncer(col), eps, opt); err != nil {
		return nil, err
	}
	return col.spans, nil
}

// Record exports the episodes through a new SDK tracer provider whose
// spans go to the given span processor option (sdktrace.WithSyncer of
// an exporter, say; the in-memory exporter of sdk/trace/tracetest in
// tests), with the resource, the deterministic IDs and the sampler
// Spans uses, and shuts it down (flushing the exporter).
func Record(ctx context.Context, processor sdktrace.TracerProviderOption, eps []Episode, opt Options) error {
	return provide(ctx, processor, len(eps), func(k int) string { return eps[k].Name }, func(k int, tracer trace.Tracer) {
		Emit(ctx, tracer, eps[k], opt)
	})
}

// provide makes a tracer provider whose spans go to processor, with the
// resource, sampler and deterministic IDs every export shares, emits n
// runs through it (run k's IDs seeded by k and its key), and shuts it
// down (flushing the exporter).
func provide(ctx context.Context, processor sdktrace.TracerProviderOption, n int, key func(k int) string, emit func(k int, tracer trace.Tracer)) error {
	ids := &idGenerator{}
	tp := sdktrace.NewTracerProvider(
		processor,
		sdktrace.WithIDGenerator(ids),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithResource(sdkresource.NewSchemaless(attribute.String("service.name", ServiceName))),
	)
	tracer := tp.Tracer(TracerName, trace.WithSchemaURL(SchemaURL))
	for k := range n {
		ids.begin(fmt.Sprintf("%d\x00%s", k, key(k)))
		emit(k, tracer)
	}
	if err := tp.Shutdown(ctx); err != nil {
		return fmt.Errorf("otelexport: shut the tracer provider down: %w", err)
	}
	return nil
}

// collector is a span exporter keeping what it is given.
type collector struct {
	mu    sync.Mutex
	spans []sdktrace.ReadOnlySpan
}

// ExportSpans implements sdktrace.SpanExporter.
func (c *collector) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.spans = append(c.spans, spans...)
	return nil
}

// Shutdown implements sdktrace.SpanExporter.
func (c *collector) Shutdown(context.Context) error { return nil }

// idGenerator gives the IDs of one episode at a time from a hash of the
// episode's key and a counter: deterministic, and distinct between
// episodes of different names.
type idGenerator struct {
	mu  sync.Mutex
	key string
	n   uint64
}

// begin starts the IDs of the episode with this key.
func (g *idGenerator) begin(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.key, g.n = key, 0
}

func (g *idGenerator) next() [32]byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], g.n)
	g.n++
	return sha256.Sum256(append([]byte("loopsim otel id\x00"+g.key+"\x00"), b[:]...))
}

// NewIDs implements sdktrace.IDGenerator.
func (g *idGenerator) NewIDs(context.Context) (trace.TraceID, trace.SpanID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	h := g.next()
	var tid trace.TraceID
	var sid trace.SpanID
	copy(tid[:], h[:16])
	copy(sid[:], h[16:24])
	return tid, sid
}

// NewSpanID implements sdktrace.IDGenerator.
func (g *idGenerator) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	g.mu.Lock()
	defer g.mu.Unlock()
	h := g.next()
	var sid trace.SpanID
	copy(sid[:], h[:8])
	return sid
}
