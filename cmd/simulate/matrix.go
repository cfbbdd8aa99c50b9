package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopsim/loopsim/agents"
	"github.com/loopsim/loopsim/otelexport"
	"github.com/loopsim/loopsim/scenarios"
)

func init() {
	register(command{name: "matrix", summary: "run fault scenarios against each installed released agent and write the scenario-by-agent table (matrix.md, matrix.json)", run: runMatrix})
}

// matrixUsage is the matrix subcommand's help, before its flags.
const matrixUsage = `usage: simulate matrix [--preset a,b,...] [-cmd NAME=PATH]... [-timeout D] [-parallel N] [-out DIR] [-html FILE] [-title T] [-otlp FILE] [-otlp-endpoint URL] [-timeline FILE] SCENARIO|DIR...
       simulate matrix -from matrix.json [-html FILE] [-title T]

Runs each scenario against each agent of the presets (all five by
default; docs/agents.md), as simulate agent --preset does, skipping an
agent whose binary is not on PATH (saying so), and writes DIR/matrix.md
(scenario by agent: the request sequence, exit status and final event,
requests, seconds), DIR/matrix.json and DIR/report.html (the table as
one HTML file, each cell's requests drawn as a strip). With -from
matrix.json it runs nothing and writes the HTML report of that matrix. A cell where the agent broke a
wire invariant (the rules of check-agent, docs/check-agent.md, under the
matrix's limits: 20 failed requests in a row, 3 compactions without
progress, the time limit as the session bound) is marked with it.
Progress goes to stderr. -otlp, -otlp-endpoint and -timeline export
every cell from the server's records into one file: a trace (a timeline
process) per cell, named by its agent and scenario (docs/otel.md).

Exit status: 0 when no rule was broken, 1 when one was, 2 on bad input.

`

func runMatrix(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	fs.SetOutput(stderr)
	presets := fs.String("preset", strings.Join(agents.Names(), ","), "the agents, by preset name, comma-separated")
	timeout := fs.Duration("timeout", 90*time.Second, "bound on one cell; the agent is killed when it expires")
	parallel := fs.Int("parallel", 1, "how many cells run at once")
	out := fs.String("out", ".", "the folder matrix.md and matrix.json are written to")
	title := fs.String("title", "Released agents under faults", "the Markdown table's title")
	from := fs.String("from", "", "run nothing: render the matrix saved in this `matrix.json` as one HTML file (to -html)")
	htmlOut := fs.String("html", "", "the HTML report's `file` (default: report.html in -out)")
	export := &exportFlags{}
	export.register(fs)
	bins := map[string]string{}
	fs.Func("cmd", "`NAME=PATH`: run preset NAME's binary from PATH (repeatable)", func(v string) error {
		name, path, ok := strings.Cut(v, "=")
		if !ok || name == "" || path == "" {
			return fmt.Errorf("want NAME=PATH, got %q", v)
		}
		bins[name] = path
		return nil
	})
	fs.Usage = func() {
		fmt.Fprint(stderr, matrixUsage)
		fs.PrintDefaults()
	}
	paths, err := parseInterleaved(fs, args)
	if err == flag.ErrHelp {
		return exitPass
	}
	if err != nil {
		return exitBadInput
	}
	if *htmlOut == "" {
		*htmlOut = filepath.Join(*out, reportHTML)
	}
	if *from != "" && export.wanted() {
		fmt.Fprintln(stderr, "matrix: -otlp, -otlp-endpoint and -timeline export a run's records, which matrix.json does not keep: not with -from")
		return exitBadInput
	}
	if *from != "" {
		return renderMatrix(*from, *htmlOut, *title, len(paths), stdout, stderr)
	}
	entrants, ok := matrixEntrants(*presets, bins, stderr)
	if !ok {
		return exitBadInput
	}
	if len(paths) == 0 || *timeout <= 0 {
		fmt.Fprintln(stderr, "matrix: name scenario files or directories, and a positive -timeout")
		return exitBadInput
	}
	list, err := scenarios.Load(paths...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitBadInput
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "matrix: -out: %v\n", err)
		return exitBadInput
	}
	ctx, stop := interruptContext()
	defer stop()
	m := agents.RunMatrix(ctx, list, entrants, agents.MatrixConfig{Timeout: *timeout, Parallel: *parallel,
		Progress: func(done, total int, c agents.Cell) {
			fmt.Fprintf(stderr, "[%d/%d] %s × %s: exit %d, %d requests, %.1f s%s\n", done, total, c.Agent, c.Scenario, c.Exit, len(c.Requests), c.Seconds, brokenNote(c))
		}})
	if err := writeMatrix(*out, *htmlOut, *title, m); err != nil {
		fmt.Fprintf(stderr, "matrix: %v\n", err)
		return exitBadInput
	}
	for _, c := range m.Cells {
		export.addAgent(cellRun(c))
	}
	if err := export.write(context.Background()); err != nil {
		fmt.Fprintf(stderr, "matrix: %v\n", err)
		return exitBadInput
	}
	fmt.Fprintf(stdout, "wrote %s, %s and %s (%d cells, %.0f s)\n", filepath.Join(*out, "matrix.md"), filepath.Join(*out, "matrix.json"), *htmlOut, len(m.Cells), m.Seconds)
	if m.Broken() {
		return exitFail
	}
	return exitPass
}

// matrixEntrants are the named presets with their binaries; an absent
// one is reported on stderr and kept, marked absent.
func matrixEntrants(names string, bins map[string]string, stderr io.Writer) ([]agents.Entrant, bool) {
	var out []agents.Entrant
	known := map[string]bool{}
	for _, name := range strings.Split(names, ",") {
		p, err := agents.Lookup(strings.TrimSpace(name))
		if err != nil {
			fmt.Fprintf(stderr, "matrix: --preset: %v\n", err)
			return nil, false
		}
		known[p.Name] = true
		e := agents.NewEntrant(p, bins[p.Name])
		if e.Absent != "" {
			fmt.Fprintf(stderr, "matrix: skipping %s: %s\n", p.Name, e.Absent)
		}
		out = append(out, e)
	}
	for name := range bins {
		if !known[name] {
			fmt.Fprintf(stderr, "matrix: -cmd %s: not a preset of this run\n", name)
			return nil, false
		}
	}
	return out, true
}

// cellRun is a matrix cell as an agent run to export: the cell's
// scenario, its agent, the rules it broke as its outcome (ok when none).
func cellRun(c agents.Cell) otelexport.AgentRun {
	outcome := "ok"
	if len(c.Broken) > 0 {
		outcome = "broke: " + strings.Join(c.Broken, "; ")
	}
	msg := c.Error
	if c.TimedOut {
		msg = "timed out"
	}
	return otelexport.AgentRun{Name: c.Scenario, Agent: c.Agent, Records: c.Records, Exit: c.Exit, Outcome: outcome, Error: msg,
		Start: c.Started, Elapsed: time.Duration(c.Seconds * float64(time.Second))}
}

// brokenNote is a progress line's note of the rules a cell broke.
func brokenNote(c agents.Cell) string {
	note := ""
	if c.TimedOut {
		note += " (timeout)"
	}
	if c.Error != "" {
		note += " (" + c.Error + ")"
	}
	if len(c.Broken) > 0 {
		note += ": " + strings.Join(c.Broken, "; ")
	}
	return note
}

// renderMatrix writes the matrix saved in file (a matrix.json) as the
// HTML report htmlPath, running nothing.
func renderMatrix(file, htmlPath, title string, args int, stdout, stderr io.Writer) int {
	if args > 0 {
		fmt.Fprintln(stderr, "matrix: -from renders a saved matrix: name no scenarios")
		return exitBadInput
	}
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "matrix: -from: %v\n", err)
		return exitBadInput
	}
	var m agents.Matrix
	if err := json.Unmarshal(data, &m); err != nil {
		fmt.Fprintf(stderr, "matrix: -from %s: %v\n", file, err)
		return exitBadInput
	}
	if len(m.Scenarios) == 0 || len(m.Agents) == 0 {
		fmt.Fprintf(stderr, "matrix: -from %s: no scenarios or no agents: not a matrix.json\n", file)
		return exitBadInput
	}
	p, err := matrixPage(&m, title)
	if err == nil {
		err = writePage(htmlPath, p)
	}
	if err != nil {
		fmt.Fprintf(stderr, "matrix: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(stdout, "wrote %s (%d cells)\n", htmlPath, len(m.Cells))
	return exitPass
}

// writeMatrix writes matrix.md and matrix.json into dir, and the HTML
// report to htmlPath.
func writeMatrix(dir, htmlPath, title string, m *agents.Matrix) error {
	f, err := os.Create(filepath.Join(dir, "matrix.md"))
	if err != nil {
		return err
	}
	if err := m.WriteMarkdown(f, title); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "matrix.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	p, err := matrixPage(m, title)
	if err != nil {
		return err
	}
	return writePage(htmlPath, p)
}
