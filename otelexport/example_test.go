package otelexport_test

import (
	"context"
	"fmt"
	"io"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/otelexport"
)

// A run's trace as OpenTelemetry GenAI spans, in the order they ended:
// each request (the overloaded one marked with its error and its fault
// event), then the episode (its iteration and the retry as events), with
// IDs and times derived from the trace alone, so the same run gives the
// same spans. WriteOTLPJSON writes them for a collector; Send posts them
// to an OTLP/HTTP endpoint; WriteTree prints them as simulate spans does.
func ExampleSpans() {
	model := &fakemodel.Model{Script: []fakemodel.Step{{Kind: fakemodel.Overloaded}, {Text: "done"}}}
	res, err := loop.Run(context.Background(), loop.Config{Policy: loop.ClaudeCode(), Model: model,
		Primary: loop.ModelInfo{Name: "opus", ContextWindow: 200_000, MaxOutputTokens: 8_000}}, []loop.Message{loop.UserText("hi")})
	if err != nil {
		fmt.Println(err)
		return
	}
	spans, err := otelexport.Spans(context.Background(), []otelexport.Episode{{Name: "overloaded once", Trace: res.Trace}}, otelexport.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range spans {
		fmt.Printf("%s (%s) %s, %d events\n", s.Name(), s.SpanKind(), s.Status().Code, len(s.Events()))
	}
	if err := otelexport.WriteOTLPJSON(io.Discard, spans); err != nil {
		fmt.Println(err)
	}

	// Output:
	// chat opus (client) Error, 1 events
	// chat opus (client) Unset, 0 events
	// invoke_agent loopsim (internal) Unset, 2 events
}
