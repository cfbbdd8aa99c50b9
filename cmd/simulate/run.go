package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/reports"
	"github.com/loopsim/loopsim/scenarios"
)

func init() {
	register(command{name: "run", summary: "run scenario files (default: the built-in library) and print a verdict for each", run: runScenarios})
}

// Exit statuses of the run subcommand.
const (
	exitPass     = 0 // every scenario run did what it expects
	exitFail     = 1 // an expectation failed
	exitBadInput = 2 // a file did not load, or a run could not be judged
)

// runOptions are the run subcommand's flags.
type runOptions struct {
	verbose bool
	json    bool
	filter  *regexp.Regexp
	skipped bool
	// export keeps each run's trace for -otlp, -otlp-endpoint, -timeline.
	export *exportFlags
}

func runScenarios(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opt := runOptions{export: &exportFlags{}}
	opt.export.register(fs)
	fs.BoolVar(&opt.verbose, "v", false, "print each run's trace")
	fs.BoolVar(&opt.json, "json", false, "print one JSON object a scenario (JSON Lines); with -v it carries the trace")
	pattern := fs.String("run", "", "run only the scenarios whose name matches this regular expression")
	fs.BoolVar(&opt.skipped, "skipped", false, "also run the scenarios marked skip (they show known loop bugs)")
	fs.Usage = func() {
		fmt.Fprint(stderr, runUsage)
		fs.PrintDefaults()
	}
	paths, err := parseInterleaved(fs, args)
	if err == flag.ErrHelp {
		return exitPass
	}
	if err != nil {
		return exitBadInput
	}
	if *pattern != "" {
		if opt.filter, err = regexp.Compile(*pattern); err != nil {
			fmt.Fprintf(stderr, "run: -run: %v\n", err)
			return exitBadInput
		}
	}

	var list []*scenarios.Scenario
	if len(paths) == 0 {
		list, err = scenarios.Library()
	} else {
		list, err = scenarios.Load(paths...)
	}
	status := exitPass
	notLoaded := 0
	if err != nil {
		fmt.Fprintln(stderr, err)
		status = exitBadInput
		notLoaded = filesWithProblems(err)
	}
	if len(list) == 0 && err == nil {
		fmt.Fprintf(stderr, "run: no scenario files in %s (a directory stands for the .yaml files directly in it)\n", strings.Join(paths, ", "))
		return exitBadInput
	}
	if opt.filter != nil {
		matched := list[:0:0]
		for _, s := range list {
			if opt.filter.MatchString(s.Name) {
				matched = append(matched, s)
			}
		}
		if len(matched) == 0 && len(list) > 0 {
			fmt.Fprintf(stderr, "run: -run %q matches none of the %d scenarios\n", *pattern, len(list))
			return exitBadInput
		}
		list = matched
	}
	var tally tally
	for _, s := range list {
		st, err := runOne(context.Background(), s, opt, stdout, &tally)
		if err != nil {
			fmt.Fprintf(stderr, "run: %v\n", err)
			return exitBadInput
		}
		status = max(status, st)
	}
	if err := opt.export.write(context.Background()); err != nil {
		fmt.Fprintf(stderr, "run: %v\n", err)
		return exitBadInput
	}
	if !opt.json {
		line := fmt.Sprintf("%d passed, %d failed, %d skipped", tally.passed, tally.failed, tally.skipped)
		if notLoaded > 0 {
			line += fmt.Sprintf(", %d did not load", notLoaded)
		}
		fmt.Fprintln(stdout, line)
	}
	return status
}

// runUsage is the run subcommand's help, before its flags.
const runUsage = `usage: simulate run [-v] [--json] [-run REGEXP] [-skipped] [-otlp FILE] [-otlp-endpoint URL] [-timeline FILE] [FILE|DIR]...

Runs scenario files (a directory stands for the .yaml files in it; with no
argument, the built-in library) and prints one verdict line each: PASS,
FAIL with what departed (each expectation by its path in the file,
wanted against got, sequences as strips), or SKIP with its reason; -v
and --json also name what each run was compared on. The format is
documented in scenarios/README.md. -otlp, -otlp-endpoint and -timeline
also write every run's trace as OpenTelemetry spans or a Perfetto
timeline (docs/otel.md).

Exit status: 0 when every scenario run passed, 1 when an expectation
failed, 2 when a file did not load (the loader's message names
file:line:column and the field), -run matched no scenario, or a run
could not be judged.

`

// filesWithProblems counts the files a loader error names.
func filesWithProblems(err error) int {
	var list scenarios.ErrorList
	if !errors.As(err, &list) {
		return 1
	}
	files := map[string]bool{}
	for _, e := range list {
		files[e.File] = true
	}
	return len(files)
}

// parseInterleaved parses flags that may come before, between or after
// the paths, and returns the paths.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var paths []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return paths, nil
		}
		paths = append(paths, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// tally counts verdicts.
type tally struct{ passed, failed, skipped int }

// verdict is one scenario's line of the --json output.
type verdict struct {
	Name        string            `json:"name"`
	File        string            `json:"file"`
	Verdict     string            `json:"verdict"`
	Skip        string            `json:"skip,omitempty"`
	Error       string            `json:"error,omitempty"`
	Terminal    loop.Terminal     `json:"terminal,omitempty"`
	Halted      bool              `json:"halted,omitempty"`
	Transitions []loop.Transition `json:"transitions,omitempty"`
	Violations  []string          `json:"violations,omitempty"`
	// Compared names what the run was compared on, by paths in the file.
	Compared []string          `json:"compared,omitempty"`
	Diff     string            `json:"diff,omitempty"`
	Trace    []json.RawMessage `json:"trace,omitempty"`
}

// runOne runs one scenario and prints its verdict. It returns the exit
// status the scenario calls for; the error is output that could not be
// written.
func runOne(ctx context.Context, s *scenarios.Scenario, opt runOptions, w io.Writer, t *tally) (int, error) {
	v := verdict{Name: s.Name, File: s.File}
	status := exitPass
	var out *scenarios.Outcome
	switch {
	case s.Skip != "" && !opt.skipped:
		v.Verdict, v.Skip = reports.VerdictSkip, s.Skip
		t.skipped++
	default:
		var err error
		out, err = scenarios.Run(ctx, s)
		if err != nil {
			v.Verdict, v.Error = reports.VerdictError, err.Error()
			status = exitBadInput
			break
		}
		opt.export.add(s.Name, out.Result.Trace)
		v.Terminal, v.Halted, v.Transitions = out.Result.Terminal, out.Result.Halted, out.Got.Transitions
		v.Compared = out.Compared()
		for _, x := range out.Violations {
			v.Violations = append(v.Violations, x.Error())
		}
		if out.Passed() {
			v.Verdict = reports.VerdictPass
			t.passed++
		} else {
			v.Verdict, v.Diff = reports.VerdictFail, out.Diff()
			status = exitFail
			t.failed++
		}
	}
	if opt.json {
		return status, writeJSONVerdict(w, v, out, opt.verbose)
	}
	return status, writeTextVerdict(w, v, out, opt.verbose)
}

func writeJSONVerdict(w io.Writer, v verdict, out *scenarios.Outcome, verbose bool) error {
	if verbose && out != nil {
		for _, e := range out.Result.Trace {
			b, err := loop.MarshalEvent(e)
			if err != nil {
				return err
			}
			v.Trace = append(v.Trace, b)
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func writeTextVerdict(w io.Writer, v verdict, out *scenarios.Outcome, verbose bool) error {
	var b strings.Builder
	switch v.Verdict {
	case reports.VerdictSkip:
		fmt.Fprintf(&b, "SKIP  %-48s %s\n", v.Name, v.Skip)
	case reports.VerdictError:
		fmt.Fprintf(&b, "ERROR %-48s %s\n", v.Name, v.Error)
	default:
		end := string(v.Terminal)
		if v.Halted {
			end = "halted"
		}
		fmt.Fprintf(&b, "%-5s %-48s %-22s %s\n", strings.ToUpper(v.Verdict), v.Name, end, summarize(v.Transitions))
	}
	if v.Verdict == reports.VerdictFail {
		b.WriteString(indent("departed:\n"+indent(v.Diff, "  "), "      "))
		if len(v.Violations) > 0 {
			b.WriteString(indent("invariants broken:\n  "+strings.Join(v.Violations, "\n  ")+"\n", "      "))
		}
	}
	if verbose && len(v.Compared) > 0 {
		b.WriteString(indent("compared: "+strings.Join(v.Compared, ", ")+"\n", "      "))
	}
	if verbose && out != nil {
		var tr strings.Builder
		if err := loop.WriteReadable(&tr, out.Result.Trace); err != nil {
			return err
		}
		b.WriteString(indent(tr.String(), "      "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// summarize writes a transition sequence compactly: runs of the same
// transition as "name*n".
func summarize(ts []loop.Transition) string {
	var parts []string
	for i := 0; i < len(ts); {
		j := i
		for j < len(ts) && ts[j] == ts[i] {
			j++
		}
		if j-i > 1 {
			parts = append(parts, fmt.Sprintf("%s*%d", ts[i], j-i))
		} else {
			parts = append(parts, string(ts[i]))
		}
		i = j
	}
	return strings.Join(parts, " ")
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(prefix)
			b.WriteString(l)
		}
	}
	if !strings.HasSuffix(s, "\n") && s != "" {
		b.WriteByte('\n')
	}
	return b.String()
}
