package otelexport

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// TracesData converts SDK spans into OTLP's protobuf form: one
// ResourceSpans per resource, one ScopeSpans per instrumentation scope
// within it, spans in the order given.
func TracesData(spans []sdktrace.ReadOnlySpan) *tracepb.TracesData {
	td := &tracepb.TracesData{}
	var rs *tracepb.ResourceSpans
	var ss *tracepb.ScopeSpans
	var lastRes string
	var lastScope string
	for _, s := range spans {
		resKey := s.Resource().Encoded(attribute.DefaultEncoder()) + "\x00" + s.Resource().SchemaURL()
		if rs == nil || resKey != lastRes {
			rs = &tracepb.ResourceSpans{
				Resource:  &resourcepb.Resource{Attributes: keyValues(s.Resource().Attributes())},
				SchemaUrl: s.Resource().SchemaURL(),
			}
			td.ResourceSpans = append(td.ResourceSpans, rs)
			lastRes, ss = resKey, nil
		}
		sc := s.InstrumentationScope()
		scopeKey := sc.Name + "\x00" + sc.Version + "\x00" + sc.SchemaURL
		if ss == nil || scopeKey != lastScope {
			ss = &tracepb.ScopeSpans{
				Scope:     &commonpb.InstrumentationScope{Name: sc.Name, Version: sc.Version},
				SchemaUrl: sc.SchemaURL,
			}
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
			lastScope = scopeKey
		}
		ss.Spans = append(ss.Spans, span(s))
	}
	return td
}

func span(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	out := &tracepb.Span{
		TraceId:                tid[:],
		SpanId:                 sid[:],
		TraceState:             sc.TraceState().String(),
		Flags:                  uint32(sc.TraceFlags()),
		Name:                   s.Name(),
		Kind:                   spanKind(s.SpanKind()),
		StartTimeUnixNano:      uint64(s.StartTime().UnixNano()),
		EndTimeUnixNano:        uint64(s.EndTime().UnixNano()),
		Attributes:             keyValues(s.Attributes()),
		DroppedAttributesCount: uint32(s.DroppedAttributes()),
		DroppedEventsCount:     uint32(s.DroppedEvents()),
		DroppedLinksCount:      uint32(s.DroppedLinks()),
		Status:                 &tracepb.Status{Message: s.Status().Description, Code: statusCode(s.Status().Code)},
	}
	if p := s.Parent(); p.SpanID().IsValid() {
		psid := p.SpanID()
		out.ParentSpanId = psid[:]
	}
	for _, ev := range s.Events() {
		out.Events = append(out.Events, &tracepb.Span_Event{
			TimeUnixNano:           uint64(ev.Time.UnixNano()),
			Name:                   ev.Name,
			Attributes:             keyValues(ev.Attributes),
			DroppedAttributesCount: uint32(ev.DroppedAttributeCount),
		})
	}
	for _, l := range s.Links() {
		ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		out.Links = append(out.Links, &tracepb.Span_Link{
			TraceId:    ltid[:],
			SpanId:     lsid[:],
			TraceState: l.SpanContext.TraceState().String(),
			Attributes: keyValues(l.Attributes),
			Flags:      uint32(l.SpanContext.TraceFlags()),
		})
	}
	return out
}

func spanKind(k trace.SpanKind) tracepb.Span_SpanKind {
	switch k {
	case trace.SpanKindInternal:
		return tracepb.Span_SPAN_KIND_INTERNAL
	case trace.SpanKindServer:
		return tracepb.Span_SPAN_KIND_SERVER
	case trace.SpanKindClient:
		return tracepb.Span_SPAN_KIND_CLIENT
	case trace.SpanKindProducer:
		return tracepb.Span_SPAN_KIND_PRODUCER
	case trace.SpanKindConsumer:
		return tracepb.Span_SPAN_KIND_CONSUMER
	}
	return tracepb.Span_SPAN_KIND_UNSPECIFIED
}

func statusCode(c codes.Code) tracepb.Status_StatusCode {
	switch c {
	case codes.Ok:
		return tracepb.Status_STATUS_CODE_OK
	case codes.Error:
		return tracepb.Status_STATUS_CODE_ERROR
	}
	return tracepb.Status_STATUS_CODE_UNSET
}

func keyValues(attrs []attribute.KeyValue) []*commonpb.KeyValue {
	out := make([]*commonpb.KeyValue, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, &commonpb.KeyValue{Key: string(a.Key), Value: anyValue(a.Value)})
	}
	return out
}

func anyValue(v attribute.Value) *commonpb.AnyValue {
	switch v.Type() {
	case attribute.BOOL:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.STRING:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.AsString()}}
	case attribute.BOOLSLICE:
		return array(v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		return array(v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		return array(v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		return array(v.AsStringSlice(), attribute.StringValue)
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.Emit()}}
}

func array[T any](xs []T, value func(T) attribute.Value) *commonpb.AnyValue {
	vals := make([]*commonpb.AnyValue, len(xs))
	for i, x := range xs {
		vals[i] = anyValue(value(x))
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: vals}}}
}

// idFields are the OTLP JSON fields holding trace and span IDs: hex in
// OTLP JSON, base64 in protobuf's own JSON mapping.
var idFields = map[string]bool{"traceId": true, "spanId": true, "parentSpanId": true}

// WriteOTLPJSON writes spans as one OTLP JSON document (a TracesData
// object, as the OTLP file exporter and collectors' file receivers
// read): protobuf's JSON mapping with enums as numbers and trace and
// span IDs in hex, as the OTLP specification asks, indented with its
// keys in a fixed order so the same spans give the same bytes.
func WriteOTLPJSON(w io.Writer, spans []sdktrace.ReadOnlySpan) error {
	b, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(TracesData(spans))
	if err != nil {
		return fmt.Errorf("otelexport: encode OTLP JSON: %w", err)
	}
	doc, err := decodeJSON(b)
	if err != nil {
		return fmt.Errorf("otelexport: re-read OTLP JSON: %w", err)
	}
	if err := convertIDs(doc, func(s string) (string, error) {
		raw, err := base64.StdEncoding.DecodeString(s)
		return hex.EncodeToString(raw), err
	}); err != nil {
		return fmt.Errorf("otelexport: encode OTLP JSON: %w", err)
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("otelexport: encode OTLP JSON: %w", err)
	}
	if _, err := w.Write(append(out, '\n')); err != nil {
		return fmt.Errorf("otelexport: write OTLP JSON: %w", err)
	}
	return nil
}

// ReadOTLPJSON reads one OTLP JSON document (trace and span IDs in hex)
// into OTLP's protobuf types.
func ReadOTLPJSON(r io.Reader) (*tracepb.TracesData, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("otelexport: read OTLP JSON: %w", err)
	}
	doc, err := decodeJSON(b)
	if err != nil {
		return nil, fmt.Errorf("otelexport: read OTLP JSON: %w", err)
	}
	if err := convertIDs(doc, func(s string) (string, error) {
		raw, err := hex.DecodeString(s)
		return base64.StdEncoding.EncodeToString(raw), err
	}); err != nil {
		return nil, fmt.Errorf("otelexport: read OTLP JSON: %w", err)
	}
	pb, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("otelexport: read OTLP JSON: %w", err)
	}
	td := &tracepb.TracesData{}
	if err := protojson.Unmarshal(pb, td); err != nil {
		return nil, fmt.Errorf("otelexport: read OTLP JSON: %w", err)
	}
	return td, nil
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// convertIDs rewrites every ID field of the decoded document in place.
func convertIDs(v any, conv func(string) (string, error)) error {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if s, ok := val.(string); ok && idFields[k] {
				c, err := conv(s)
				if err != nil {
					return fmt.Errorf("field %s %q: %w", k, s, err)
				}
				x[k] = c
				continue
			}
			if err := convertIDs(val, conv); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := convertIDs(e, conv); err != nil {
				return err
			}
		}
	}
	return nil
}
