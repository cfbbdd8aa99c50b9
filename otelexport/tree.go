package otelexport

import (
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// WriteTree prints the span trees of OTLP data (what [ReadOTLPJSON]
// reads back): each trace's root first, a span a line indented by its
// depth, with its times in milliseconds from its trace's start and its
// status when it is an error, then its attributes on one line and its
// events a line each. Children are in order of their start, then of the
// file. A span whose parent is not in the data is printed as a root.
func WriteTree(w io.Writer, td *tracepb.TracesData) error {
	var spans []*tracepb.Span
	for _, rs := range td.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			spans = append(spans, ss.GetSpans()...)
		}
	}
	key := func(traceID, spanID []byte) string { return hex.EncodeToString(traceID) + hex.EncodeToString(spanID) }
	known := map[string]bool{}
	start := map[string]uint64{} // each trace's earliest start
	for _, s := range spans {
		known[key(s.TraceId, s.SpanId)] = true
		t := hex.EncodeToString(s.TraceId)
		if v, ok := start[t]; !ok || s.StartTimeUnixNano < v {
			start[t] = s.StartTimeUnixNano
		}
	}
	children := map[string][]*tracepb.Span{}
	var roots []*tracepb.Span
	for _, s := range spans {
		p := key(s.TraceId, s.ParentSpanId)
		if len(s.ParentSpanId) == 0 || !known[p] {
			roots = append(roots, s)
			continue
		}
		children[p] = append(children[p], s)
	}
	for _, cs := range children {
		slices.SortStableFunc(cs, func(a, b *tracepb.Span) int {
			switch {
			case a.StartTimeUnixNano < b.StartTimeUnixNano:
				return -1
			case a.StartTimeUnixNano > b.StartTimeUnixNano:
				return 1
			}
			return 0
		})
	}
	var b strings.Builder
	var write func(s *tracepb.Span, depth int)
	write = func(s *tracepb.Span, depth int) {
		base := start[hex.EncodeToString(s.TraceId)]
		pad := strings.Repeat("  ", depth)
		fmt.Fprintf(&b, "%s%s  [%s..%s ms]", pad, s.Name, msSince(s.StartTimeUnixNano, base), msSince(s.EndTimeUnixNano, base))
		if s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR {
			fmt.Fprintf(&b, "  ERROR %s", s.GetStatus().GetMessage())
		}
		b.WriteString("\n")
		if len(s.Attributes) > 0 {
			fmt.Fprintf(&b, "%s    %s\n", pad, keyValueLine(s.Attributes))
		}
		for _, ev := range s.Events {
			fmt.Fprintf(&b, "%s    event %s @%s ms", pad, ev.Name, msSince(ev.TimeUnixNano, base))
			if len(ev.Attributes) > 0 {
				b.WriteString(" " + keyValueLine(ev.Attributes))
			}
			b.WriteString("\n")
		}
		for _, c := range children[key(s.TraceId, s.SpanId)] {
			write(c, depth+1)
		}
	}
	for _, r := range roots {
		write(r, 0)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("otelexport: write the span tree: %w", err)
	}
	return nil
}

// msSince is t after base in milliseconds, with the fraction to the
// microsecond when there is one (a server's observed times).
func msSince(t, base uint64) string {
	d := float64(int64(t-base)/1e3) / 1e3
	return strconv.FormatFloat(d, 'f', -1, 64)
}

// keyValueLine is attributes as key=value, in their order.
func keyValueLine(kvs []*commonpb.KeyValue) string {
	parts := make([]string, len(kvs))
	for i, kv := range kvs {
		parts[i] = kv.Key + "=" + valueText(kv.Value)
	}
	return strings.Join(parts, " ")
}

// valueText is an attribute's value as text: a string as it is, an
// array in brackets, comma-separated.
func valueText(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_ArrayValue:
		parts := make([]string, len(x.ArrayValue.GetValues()))
		for i, e := range x.ArrayValue.GetValues() {
			parts[i] = valueText(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return ""
}
