package otelexport

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
