package otelexport

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// otlpTree rebuilds the span trees from OTLP data read back.
func otlpTree(t *testing.T, td *tracepb.TracesData) []*node {
	t.Helper()
	byID := map[string]*node{}
	parent := map[string]string{}
	var order []string
	for _, rs := range td.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				id := hex.EncodeToString(s.TraceId) + hex.EncodeToString(s.SpanId)
				n := &node{Name: s.Name, Start: ms(int64(s.StartTimeUnixNano)), End: ms(int64(s.EndTimeUnixNano)), Attrs: pbAttrs(s.Attributes), Status: pbStatus(s.Status)}
				for _, ev := range s.Events {
					n.Events = append(n.Events, eventLine(ev.Name, pbAttrs(ev.Attributes)))
				}
				byID[id] = n
				order = append(order, id)
				if len(s.ParentSpanId) > 0 {
					parent[id] = hex.EncodeToString(s.TraceId) + hex.EncodeToString(s.ParentSpanId)
				}
			}
		}
	}
	return link(t, byID, parent, order)
}

func pbStatus(s *tracepb.Status) string {
	switch s.GetCode() {
	case tracepb.Status_STATUS_CODE_ERROR:
		return "Error"
	case tracepb.Status_STATUS_CODE_OK:
		return "Ok"
	}
	return "Unset"
}

// pbAttrs renders OTLP attributes as attribute.Value.Emit does.
func pbAttrs(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[kv.Key] = pbValue(kv.Value)
	}
	return m
}

func pbValue(v *commonpb.AnyValue) string {
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		b, _ := json.Marshal(x.BoolValue)
		return string(b)
	case *commonpb.AnyValue_IntValue:
		b, _ := json.Marshal(x.IntValue)
		return string(b)
	case *commonpb.AnyValue_DoubleValue:
		b, _ := json.Marshal(x.DoubleValue)
		return string(b)
	case *commonpb.AnyValue_ArrayValue:
		var xs []string
		for _, e := range x.ArrayValue.Values {
			xs = append(xs, pbValue(e))
		}
		if len(xs) > 0 {
			if _, ok := x.ArrayValue.Values[0].Value.(*commonpb.AnyValue_StringValue); !ok {
				return "[" + strings.Join(xs, ",") + "]"
			}
		}
		b, _ := json.Marshal(xs)
		return string(b)
	}
	return ""
}

func writeExample(t *testing.T, eps ...Episode) []byte {
	t.Helper()
	spans, err := Spans(context.Background(), eps, Options{})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteOTLPJSON(&buf, spans))
	return buf.Bytes()
}

// The OTLP JSON read back gives the tree the SDK's spans make.
func TestOTLPJSONReadBackSameTree(t *testing.T) {
	ep := Episode{Name: exampleScenario, Trace: goldenTrace(t, exampleScenario)}
	td, err := ReadOTLPJSON(bytes.NewReader(writeExample(t, ep)))
	require.NoError(t, err)
	require.Len(t, td.ResourceSpans, 1)
	assert.Equal(t, ServiceName, pbAttrs(td.ResourceSpans[0].Resource.Attributes)["service.name"])
	require.Len(t, td.ResourceSpans[0].ScopeSpans, 1)
	assert.Equal(t, SchemaURL, td.ResourceSpans[0].ScopeSpans[0].SchemaUrl)
	assert.Equal(t, TracerName, td.ResourceSpans[0].ScopeSpans[0].Scope.Name)
	assert.Equal(t, sdkTree(t, inMemory(t, ep)), otlpTree(t, td))
}

// IDs are hex and enums numbers, as OTLP JSON asks (not protobuf's
// base64 and enum names).
func TestOTLPJSONEncoding(t *testing.T) {
	b := writeExample(t, Episode{Name: exampleScenario, Trace: goldenTrace(t, exampleScenario)})
	var doc struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []struct {
					TraceID           string          `json:"traceId"`
					SpanID            string          `json:"spanId"`
					ParentSpanID      string          `json:"parentSpanId"`
					Kind              json.RawMessage `json:"kind"`
					StartTimeUnixNano string          `json:"startTimeUnixNano"`
				} `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Len(t, doc.ResourceSpans, 1)
	require.Len(t, doc.ResourceSpans[0].ScopeSpans, 1)
	spans := doc.ResourceSpans[0].ScopeSpans[0].Spans
	require.NotEmpty(t, spans)
	isHex := func(s string, n int) bool {
		_, err := hex.DecodeString(s)
		return err == nil && len(s) == n
	}
	roots := 0
	for _, s := range spans {
		assert.True(t, isHex(s.TraceID, 32), s.TraceID)
		assert.True(t, isHex(s.SpanID, 16), s.SpanID)
		if s.ParentSpanID == "" {
			roots++
		} else {
			assert.True(t, isHex(s.ParentSpanID, 16), s.ParentSpanID)
		}
		assert.Regexp(t, `^[0-9]$`, string(s.Kind))
		assert.Regexp(t, `^[0-9]+$`, s.StartTimeUnixNano)
	}
	assert.Equal(t, 1, roots)
}

// The same episode gives the same file, byte for byte.
func TestOTLPJSONDeterministic(t *testing.T) {
	ep := Episode{Name: exampleScenario, Trace: goldenTrace(t, exampleScenario)}
	assert.Equal(t, string(writeExample(t, ep)), string(writeExample(t, ep)))
}

func TestReadOTLPJSONBadInput(t *testing.T) {
	for name, in := range map[string]string{
		"not JSON":      "{",
		"bad hex ID":    `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz","spanId":"00"}]}]}]}`,
		"unknown field": `{"resourceSpan":[]}`,
	} {
		_, err := ReadOTLPJSON(strings.NewReader(in))
		assert.Error(t, err, name)
	}
}
