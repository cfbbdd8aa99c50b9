package otelexport

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// SendTimeout bounds one export to an endpoint, retries included.
const SendTimeout = 10 * time.Second

// Send exports spans to an OTLP/HTTP endpoint with the SDK's
// otlptracehttp exporter (protobuf over HTTP). endpointURL is the
// collector's URL, http:// (no TLS) or https://; without a path it is
// sent to /v1/traces, OTLP's default. Transient failures are retried
// within SendTimeout.
func Send(ctx context.Context, endpointURL string, spans []sdktrace.ReadOnlySpan) error {
	u, err := url.Parse(endpointURL)
	if err != nil {
		return fmt.Errorf("otelexport: OTLP endpoint: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("otelexport: OTLP endpoint %q: want http://host:port or https://host:port", endpointURL)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	exp, err := otlptracehttp.New(ctx,
		otlptracehttp.WithEndpointURL(u.String()),
		otlptracehttp.WithTimeout(SendTimeout),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 500 * time.Millisecond,
			MaxInterval: 2 * time.Second, MaxElapsedTime: SendTimeout}))
	if err != nil {
		return fmt.Errorf("otelexport: OTLP exporter for %s: %w", u, err)
	}
	if err := exp.ExportSpans(ctx, spans); err != nil {
		_ = exp.Shutdown(ctx)
		return fmt.Errorf("otelexport: send spans to %s: %w", u, err)
	}
	if err := exp.Shutdown(ctx); err != nil {
		return fmt.Errorf("otelexport: close the OTLP exporter for %s: %w", u, err)
	}
	return nil
}
