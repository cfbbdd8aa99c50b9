// Package otelexport turns loop traces into OpenTelemetry traces in the
// form of the GenAI semantic conventions (docs/otel.md): one trace per
// episode, an invoke_agent span for the run, a chat span per model
// request (every attempt, compaction requests included, with purpose and
// attempt as attributes), an execute_tool span per tool call, hooks,
// transitions and the loop's other decisions as span events, and every
// fault as a loopsim.fault event with its kind (error.type on the failed
// span). The spans are made with the OpenTelemetry Go SDK; they are
// written as OTLP JSON ([WriteOTLPJSON], what collectors' file receivers
// read) or sent to an OTLP/HTTP endpoint ([Send]).
//
// Times are simulated (internal/simclock): the same trace gives the same
// spans, IDs and file.
//
// A foreign agent's run, as the fake model API server recorded it
// ([AgentRun], [AgentSpans]), is exported the same way from the server's
// records: an invoke_agent span for the run, a chat span per request,
// a loopsim.fault event per injected fault. Its times are the server's
// observations; its IDs still derive from the run's name and position.
// [WriteTree] prints the span tree of OTLP data read back.
package otelexport
