package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/loopsim/loopsim/otelexport"
)

func init() {
	register(command{name: "spans", summary: "print the span tree of OTLP JSON files (what -otlp writes), read back", run: runSpans})
}

// spansUsage is the spans subcommand's help.
const spansUsage = `usage: simulate spans FILE...

Reads each file as OTLP JSON (a TracesData object, as -otlp writes and an
OpenTelemetry Collector's file exporter does) and prints its span trees:
a span a line, indented under its parent, with its times in ms from its
trace's start and its error status, then its attributes and events
(docs/otel.md). Exit status: 0, or 2 when a file cannot be read.
`

func runSpans(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("spans", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, spansUsage) }
	if err := fs.Parse(args); err == flag.ErrHelp {
		return exitPass
	} else if err != nil {
		return exitBadInput
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "spans: name OTLP JSON files")
		return exitBadInput
	}
	status := exitPass
	for _, path := range fs.Args() {
		if err := printSpans(path, stdout); err != nil {
			fmt.Fprintf(stderr, "spans: %s: %v\n", path, err)
			status = exitBadInput
		}
	}
	return status
}

// printSpans prints the span trees of one OTLP JSON file.
func printSpans(path string, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	td, err := otelexport.ReadOTLPJSON(f)
	if err != nil {
		return err
	}
	return otelexport.WriteTree(w, td)
}
