package otelexport

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/loopsim/loopsim/internal/simclock"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// node is a span of a rebuilt tree: what the tests compare, from the
// SDK's spans or from OTLP JSON read back.
type node struct {
	Name     string
	Start    int64 // ms after the epoch
	End      int64
	Attrs    map[string]string
	Events   []string // name and attributes, in order
	Status   string
	Children []*node
}

// render writes the tree one span a line, indented by depth.
func (n *node) render(b *strings.Builder, depth int) {
	fmt.Fprintf(b, "%s%s [%d..%d ms]\n", strings.Repeat("  ", depth), n.Name, n.Start, n.End)
	for _, c := range n.Children {
		c.render(b, depth+1)
	}
}

func attrString(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

func eventLine(name string, attrs map[string]string) string {
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(name)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%s", k, attrs[k])
	}
	return b.String()
}

// sdkTree rebuilds the span trees (one root a trace) from SDK spans;
// children are ordered by start time, then name.
func sdkTree(t *testing.T, spans tracetest.SpanStubs) []*node {
	t.Helper()
	byID := map[string]*node{}
	parent := map[string]string{}
	var order []string
	for _, s := range spans {
		id := s.SpanContext.TraceID().String() + s.SpanContext.SpanID().String()
		n := &node{Name: s.Name, Start: ms(s.StartTime.UnixNano()), End: ms(s.EndTime.UnixNano()), Attrs: attrString(s.Attributes), Status: s.Status.Code.String()}
		for _, ev := range s.Events {
			n.Events = append(n.Events, eventLine(ev.Name, attrString(ev.Attributes)))
		}
		byID[id] = n
		order = append(order, id)
		if s.Parent.SpanID().IsValid() {
			parent[id] = s.Parent.TraceID().String() + s.Parent.SpanID().String()
		}
	}
	return link(t, byID, parent, order)
}

func link(t *testing.T, byID map[string]*node, parent map[string]string, order []string) []*node {
	t.Helper()
	var roots []*node
	for _, id := range order {
		p, ok := parent[id]
		if !ok {
			roots = append(roots, byID[id])
			continue
		}
		pn, ok := byID[p]
		require.True(t, ok, "span %s has a parent %s not among the spans", byID[id].Name, p)
		pn.Children = append(pn.Children, byID[id])
	}
	for _, n := range byID {
		sort.SliceStable(n.Children, func(i, j int) bool {
			a, b := n.Children[i], n.Children[j]
			if a.Start != b.Start {
				return a.Start < b.Start
			}
			return a.Name < b.Name
		})
	}
	sort.SliceStable(roots, func(i, j int) bool { return roots[i].Attrs[AttrConversationID] < roots[j].Attrs[AttrConversationID] })
	return roots
}

var epochNano = simclock.Epoch.UnixNano()

func ms(unixNano int64) int64 {
	return (unixNano - epochNano) / 1e6
}

// inMemory exports episodes to the SDK's in-memory exporter.
func inMemory(t *testing.T, eps ...Episode) tracetest.SpanStubs {
	t.Helper()
	exp := keepSpans{tracetest.NewInMemoryExporter()}
	require.NoError(t, Record(context.Background(), sdktrace.WithSyncer(exp), eps, Options{}))
	return exp.GetSpans()
}

// keepSpans is the in-memory exporter without its reset on shutdown
// (Record shuts its provider down before the test reads the spans).
type keepSpans struct{ *tracetest.InMemoryExporter }

// Shutdown implements sdktrace.SpanExporter.
func (keepSpans) Shutdown(context.Context) error { return nil }

// WriteTree prints the example's tree read back from OTLP JSON: the root
// with its times, attributes and events, each child indented under it,
// a failed request's error status on its line.
func TestWriteTree(t *testing.T) {
	ep := Episode{Name: exampleScenario, Trace: goldenTrace(t, exampleScenario)}
	td, err := ReadOTLPJSON(bytes.NewReader(writeExample(t, ep)))
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, WriteTree(&b, td))
	lines := strings.Split(b.String(), "\n")
	assert.Equal(t, "invoke_agent loopsim  [0..607 ms]", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "    gen_ai.operation.name=invoke_agent gen_ai.provider.name=anthropic "), lines[1])
	assert.Contains(t, b.String(), "\n    event loopsim.transition @5 ms loopsim.transition=next_turn loopsim.transition.changes=[")
	assert.Contains(t, b.String(), "\n  execute_tool Bash  [3..4 ms]\n")
	assert.Contains(t, b.String(), "\n  chat claude-sonnet-5-5  [8..9 ms]  ERROR ")
	assert.Contains(t, b.String(), "\n      event loopsim.fault @9 ms loopsim.fault.kind=connection ")
	assert.Contains(t, b.String(), "gen_ai.response.finish_reasons=[tool_use]")
	assert.Equal(t, 1, strings.Count(b.String(), "\ninvoke_agent")+strings.Count(lines[0], "invoke_agent"), "one root")

	// a span whose parent is missing is printed as a root
	spans := td.ResourceSpans[0].ScopeSpans[0].Spans
	var orphan *tracepb.Span
	for _, s := range spans {
		if len(s.ParentSpanId) > 0 {
			orphan = s
			break
		}
	}
	require.NotNil(t, orphan)
	td.ResourceSpans[0].ScopeSpans[0].Spans = []*tracepb.Span{orphan}
	b.Reset()
	require.NoError(t, WriteTree(&b, td))
	assert.True(t, strings.HasPrefix(b.String(), orphan.Name+"  [0..1 ms]\n"), b.String())
}
