package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/otelexport"
	"github.com/loopsim/loopsim/timeline"
)

// exportFlags are the flags that write a run's traces for other tools:
// OpenTelemetry (a file of OTLP JSON, or a collector's endpoint) and a
// Perfetto timeline. simulate run and simulate -replay take them for
// loop traces; simulate agent and simulate matrix for foreign agents'
// runs, from the fake server's records.
type exportFlags struct {
	otlp         string
	otlpEndpoint string
	timeline     string
	episodes     []otelexport.Episode
	agents       []otelexport.AgentRun
}

func (x *exportFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&x.otlp, "otlp", "", "also write the traces as OpenTelemetry spans (GenAI semantic conventions) to this `file`, as OTLP JSON\n(docs/otel.md)")
	fs.StringVar(&x.otlpEndpoint, "otlp-endpoint", "", "also send the traces as OpenTelemetry spans to this OTLP/HTTP collector `URL` (http://localhost:4318)")
	fs.StringVar(&x.timeline, "timeline", "", "also write the traces as a timeline Perfetto opens (Chrome trace-event JSON) to this `file`")
}

// wanted says whether any export was asked for.
func (x *exportFlags) wanted() bool {
	return x.otlp != "" || x.otlpEndpoint != "" || x.timeline != ""
}

// add keeps one episode's trace for the export.
func (x *exportFlags) add(name string, tr loop.Trace) {
	if x.wanted() {
		x.episodes = append(x.episodes, otelexport.Episode{Name: name, Trace: tr})
	}
}

// addAgent keeps one foreign agent's run for the export.
func (x *exportFlags) addAgent(run otelexport.AgentRun) {
	if x.wanted() {
		x.agents = append(x.agents, run)
	}
}

// write writes the kept episodes and agent runs where the flags say.
func (x *exportFlags) write(ctx context.Context) error {
	if !x.wanted() {
		return nil
	}
	var errs []error
	if x.otlp != "" || x.otlpEndpoint != "" {
		spans, err := otelexport.Spans(ctx, x.episodes, otelexport.Options{})
		if err != nil {
			return err
		}
		agentSpans, err := otelexport.AgentSpans(ctx, x.agents, otelexport.Options{})
		if err != nil {
			return err
		}
		spans = append(spans, agentSpans...)
		if x.otlp != "" {
			if err := writeFile(x.otlp, func(w io.Writer) error { return otelexport.WriteOTLPJSON(w, spans) }); err != nil {
				errs = append(errs, fmt.Errorf("-otlp: %w", err))
			}
		}
		if x.otlpEndpoint != "" {
			if err := otelexport.Send(ctx, x.otlpEndpoint, spans); err != nil {
				errs = append(errs, fmt.Errorf("-otlp-endpoint: %w", err))
			}
		}
	}
	if x.timeline != "" {
		if err := writeFile(x.timeline, x.writeTimeline); err != nil {
			errs = append(errs, fmt.Errorf("-timeline: %w", err))
		}
	}
	return errors.Join(errs...)
}

// writeTimeline writes the timeline of the kept agent runs, or of the
// kept episodes when there are none (a subcommand keeps one or the
// other).
func (x *exportFlags) writeTimeline(w io.Writer) error {
	if len(x.agents) > 0 {
		return timeline.WriteAgents(w, x.agents)
	}
	eps := make([]timeline.Episode, len(x.episodes))
	for i, ep := range x.episodes {
		eps[i] = timeline.Episode{Name: ep.Name, Trace: ep.Trace}
	}
	return timeline.Write(w, eps)
}
