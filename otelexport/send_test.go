package otelexport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Send posts the spans as OTLP protobuf to the endpoint's /v1/traces.
func TestSendToEndpoint(t *testing.T) {
	var mu sync.Mutex
	var got []*coltracepb.ExportTraceServiceRequest
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req := &coltracepb.ExportTraceServiceRequest{}
		if err := proto.Unmarshal(body, req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		got, paths = append(got, req), append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Write(b)
	}))
	defer srv.Close()

	ep := Episode{Name: exampleScenario, Trace: goldenTrace(t, exampleScenario)}
	spans, err := Spans(context.Background(), []Episode{ep}, Options{})
	require.NoError(t, err)
	require.NoError(t, Send(context.Background(), srv.URL, spans))

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 1)
	assert.Equal(t, []string{"/v1/traces"}, paths)
	n := 0
	for _, rs := range got[0].ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			n += len(ss.Spans)
		}
	}
	assert.Equal(t, len(spans), n)
}

func TestSendBadEndpoint(t *testing.T) {
	for _, u := range []string{"localhost:4318", "ftp://host/x", "http://", "://"} {
		assert.Error(t, Send(context.Background(), u, nil), u)
	}
}
