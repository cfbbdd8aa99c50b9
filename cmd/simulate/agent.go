package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/loopsim/loopsim/agents"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/otelexport"
	"github.com/loopsim/loopsim/properties/wirecheck"
	"github.com/loopsim/loopsim/reports"
	"github.com/loopsim/loopsim/scenarios"
)

func init() {
	register(command{name: "agent", summary: "run a foreign agent command against the fake model API server per scenario and check its requests", run: runAgents})
}

// agentVerdict is one scenario's line of `simulate agent --json`.
type agentVerdict struct {
	Name string `json:"name"`
	File string `json:"file"`
	// Verdict is the mark: pass, fail, nothing expected, not applied
	// (scenarios.Mark), or error (the run could not be judged).
	Verdict string `json:"verdict"`
	Error   string `json:"error,omitempty"`
	// Compared names the expectations compared, by their paths in the
	// file; NotCompared those not, with why.
	Compared    []string `json:"compared,omitempty"`
	NotCompared []string `json:"not_compared,omitempty"`
	// NotApplied names the policy fields that did not reach the agent;
	// Applied says how the others did.
	NotApplied []string `json:"not_applied,omitempty"`
	Applied    []string `json:"applied,omitempty"`
	// Broke and Held are a check-agent finding's replay: the violations
	// of the file's invariants again, and the invariants kept.
	Broke      []string      `json:"broke,omitempty"`
	Held       []string      `json:"held,omitempty"`
	Requests   []string      `json:"requests"`
	Exit       int           `json:"exit"`
	Result     string        `json:"result,omitempty"`
	LastOutput string        `json:"last_output,omitempty"`
	Diff       string        `json:"diff,omitempty"`
	ElapsedMS  int64         `json:"elapsed_ms"`
	Records    []wire.Record `json:"records,omitempty"`
	// Stderr is the end of the agent's standard error (its last 20 lines).
	Stderr string `json:"stderr,omitempty"`
}

func runAgents(args []string, stdout, stderr io.Writer) int {
	fs, opt := agentFlags(stderr)
	paths, err := parseInterleaved(fs, args)
	if err == flag.ErrHelp {
		return exitPass
	}
	if err != nil || !opt.check(paths, stderr) {
		return exitBadInput
	}
	list, err := scenarios.Load(paths...)
	status := exitPass
	if err != nil {
		fmt.Fprintln(stderr, err)
		status = exitBadInput
	}
	for _, s := range list {
		if s.Recheck != nil {
			if _, err := wirecheck.RecheckOptions(s); err != nil {
				fmt.Fprintf(stderr, "agent: %v\n", err)
				return exitBadInput
			}
		}
	}
	ctx, stop := interruptContext()
	defer stop()
	t := map[string]int{}
	for _, s := range list {
		if opt.filter != nil && !opt.filter.MatchString(s.Name) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		started := time.Now() // the origin of the records' times, for the export
		v, st := agentOne(ctx, s, opt.agent())
		status = max(status, st)
		opt.export.addAgent(otelexport.AgentRun{Name: s.Name, Agent: opt.agentName(), Records: v.Records, Exit: v.Exit,
			Outcome: v.Verdict, Error: v.Error, Start: started, Elapsed: time.Duration(v.ElapsedMS) * time.Millisecond})
		if opt.records != "" && len(v.Records) > 0 {
			if err := writeRecords(filepath.Join(opt.records, s.Name+".jsonl"), v.Records); err != nil {
				fmt.Fprintf(stderr, "agent: %v\n", err)
				status = exitBadInput
			}
		}
		t[v.Verdict]++
		if opt.json {
			b, err := json.Marshal(v)
			if err != nil {
				fmt.Fprintf(stderr, "agent: %v\n", err)
				return exitBadInput
			}
			fmt.Fprintf(stdout, "%s\n", b)
			continue
		}
		writeAgentVerdict(stdout, v, opt.verbose)
	}
	if !opt.json {
		fmt.Fprintln(stdout, agentTally(t))
	}
	if err := opt.export.write(context.Background()); err != nil {
		fmt.Fprintf(stderr, "agent: %v\n", err)
		status = max(status, exitBadInput)
	}
	return status
}

// agentOptions are the agent subcommand's flags.
type agentOptions struct {
	command, pattern, records string
	// preset names a preset of package agents; command is then the
	// path of its binary, when given.
	preset string
	// bin is the preset's binary, found by check.
	bin                    string
	json, verbose, inherit bool
	timeout, delay         time.Duration
	env                    []string
	// filter is -run compiled, by check.
	filter *regexp.Regexp
	// export keeps each run's records for -otlp, -otlp-endpoint, -timeline.
	export *exportFlags
}

// agentFlags declares the agent subcommand's flags into the options it
// returns.
func agentFlags(stderr io.Writer) (*flag.FlagSet, *agentOptions) {
	opt := &agentOptions{export: &exportFlags{}}
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opt.export.register(fs)
	fs.StringVar(&opt.command, "cmd", "", "the agent command, run with sh -c (required without --preset); with --preset, the path of the agent's binary (default: its name looked up on PATH)")
	fs.StringVar(&opt.preset, "preset", "", "run a released agent by its preset ("+strings.Join(agents.Names(), ", ")+"): its config in a fresh temporary home, its headless flags, the scenario's prompt")
	fs.BoolVar(&opt.json, "json", false, "print one JSON object a scenario (JSON Lines), with the request records")
	fs.StringVar(&opt.pattern, "run", "", "run only the scenarios whose name matches this regular expression")
	fs.DurationVar(&opt.timeout, "timeout", scenarios.DefaultAgentTimeout, "bound on one scenario's run; the agent's process group is killed when it expires")
	fs.StringVar(&opt.records, "records", "", "write each scenario's request records as JSON Lines into this directory (NAME.jsonl)")
	fs.DurationVar(&opt.delay, "delay", 0, "wait this long before each streamed event (slow streams)")
	fs.BoolVar(&opt.verbose, "v", false, "print the agent's last output and standard error for every scenario")
	fs.BoolVar(&opt.inherit, "inherit-env", false, "pass this process's whole environment to the command (by default only "+strings.Join(scenarios.AgentBaseEnv, ", ")+")")
	fs.Func("env", "set `NAME=VALUE` in the command's environment (repeatable)", func(v string) error {
		if name, _, ok := strings.Cut(v, "="); !ok || name == "" || strings.ContainsAny(name, " \t") {
			return fmt.Errorf("want NAME=VALUE, got %q", v)
		}
		opt.env = append(opt.env, v)
		return nil
	})
	fs.Usage = func() {
		fmt.Fprint(stderr, agentUsage)
		fs.PrintDefaults()
	}
	return fs, opt
}

// agentUsage is the agent subcommand's help, before its flags.
const agentUsage = `usage: simulate agent (--cmd 'COMMAND' | --preset NAME [--cmd PATH]) [--json] [-run REGEXP] [-timeout D] [-records DIR] [-env NAME=VALUE]... [-inherit-env] [-otlp FILE] [-otlp-endpoint URL] [-timeline FILE] SCENARIO|DIR...

Runs a foreign agent under each scenario's faults on the wire: for every
scenario it starts the fake model API server (every API) playing the scenario's
script, runs COMMAND (sh -c, its own process group) with every API's
base-URL variable at the server (ANTHROPIC_BASE_URL, and those of the
other APIs of docs/wire.md), their keys set to dummy ones and
LOOPSIM_SCENARIO to the scenario's name, on top of a clean environment
(PATH, HOME and the locale of this one, and each -env; -inherit-env
passes all of it: an agent's policy may depend on its environment),
with LOOPSIM_PROMPT set to the scenario's first message,
waits for it to exit, and compares what the wire shows with what the
scenario expects: expect.wire (the request sequence M:trunc, C:text, ...,
the result the agent reports, its exit status) and the counters of
expect.counters the wire shows (requests, compact_requests, retries,
largest_max_tokens), but those expect.loop_only names; every request must
keep the API's rules. Each scenario gets a mark and says what it
compared: PASS; FAIL with what departed (request sequences as strips,
M:500 ×30 against M:500 ×6); RAN (ran, nothing expected: the scenario
expects only the loop's own state, terminal, transitions, ...); NOT
APPLIED (a policy field the agent's preset cannot set: the agent ran at
its own setting, so the scenario does not judge it); ERROR when the
command timed out (default 5m) or exited without calling the server.
A file check-agent wrote for a finding (its recheck section) is replayed
instead: the minimal schedule on the finding's API, killed at its
session bound (not -timeout), and the invariants that broke re-checked
under its limits: REPRODUCED (exit status 3) or NOT REPRODUCED.
-otlp, -otlp-endpoint and -timeline export each run from the server's
records: a trace (a timeline process) per scenario (docs/otel.md).

Exit status: 0 when no run FAILed (RAN, NOT APPLIED and NOT REPRODUCED
fail nothing), 1 when one did, 2 when a file did not load or a run could
not be judged, 3 when a finding's replay REPRODUCED it; the largest
applies.

`

// check refuses options the run cannot start with, saying why on
// stderr: no command, no scenario, a -run that does not compile, a
// -records folder that cannot be made.
func (opt *agentOptions) check(paths []string, stderr io.Writer) bool {
	if opt.preset != "" {
		p, err := agents.Lookup(opt.preset)
		if err == nil {
			opt.bin, err = p.Find(opt.command)
		}
		if err != nil {
			fmt.Fprintf(stderr, "agent: --preset: %v\n", err)
			return false
		}
	} else if strings.TrimSpace(opt.command) == "" {
		fmt.Fprintln(stderr, "agent: --cmd is required: the command that runs the agent (or --preset NAME)")
		return false
	}
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "agent: name scenario files or directories")
		return false
	}
	if opt.pattern != "" {
		var err error
		if opt.filter, err = regexp.Compile(opt.pattern); err != nil {
			fmt.Fprintf(stderr, "agent: -run: %v\n", err)
			return false
		}
	}
	if opt.records != "" {
		if err := os.MkdirAll(opt.records, 0o755); err != nil {
			fmt.Fprintf(stderr, "agent: -records: %v\n", err)
			return false
		}
	}
	return true
}

// agentName names the agent in exports: its preset, else the command's
// first word.
func (opt *agentOptions) agentName() string {
	if opt.preset != "" {
		return opt.preset
	}
	if f := strings.Fields(opt.command); len(f) > 0 {
		return filepath.Base(f[0])
	}
	return "agent"
}

// agent is the agent every scenario runs.
func (opt *agentOptions) agent() scenarios.Agent {
	a := scenarios.Agent{Command: opt.command}
	if opt.preset != "" {
		p, _ := agents.Lookup(opt.preset) // check found it
		a = p.Agent(opt.bin)
	}
	a.Env, a.InheritEnv, a.Timeout, a.Options = opt.env, opt.inherit, opt.timeout, wire.Options{EventDelay: opt.delay}
	return a
}

// agentOne runs one scenario and returns its verdict and exit status; a
// check-agent finding's file is replayed ([replayOne]).
func agentOne(ctx context.Context, s *scenarios.Scenario, a scenarios.Agent) (agentVerdict, int) {
	if s.Recheck != nil {
		return replayOne(ctx, s, a)
	}
	v := agentVerdict{Name: s.Name, File: s.File}
	out, err := scenarios.RunAgent(ctx, s, a)
	var ae *scenarios.AgentError
	if errors.As(err, &ae) && ae.Outcome != nil {
		out = ae.Outcome
	}
	v.collected(out)
	if err != nil {
		v.Verdict, v.Error = reports.VerdictError, err.Error()
		return v, exitBadInput
	}
	v.Compared, v.NotCompared, v.NotApplied, v.Applied = out.Compared(), out.NotCompared(), out.NotApplied, out.Applied
	v.Diff = out.Diff()
	mark := out.Mark()
	v.Verdict = string(mark)
	if mark == scenarios.MarkFail {
		return v, exitFail
	}
	return v, exitPass
}

// collected fills v with what a run collected (nothing when out is nil).
func (v *agentVerdict) collected(out *scenarios.AgentOutcome) {
	if out == nil {
		return
	}
	v.Records, v.Requests, v.Exit = out.Records, wire.Labels(out.Records), out.Exit
	v.Result, v.LastOutput = scenarios.ReportedResult(out.Stdout), out.LastOutput
	v.ElapsedMS = out.Elapsed.Milliseconds()
	v.Stderr = lastLines(out.Stderr, 20)
}

// The marks of a check-agent finding's replay.
const (
	verdictReproduced    = "reproduced"     // an invariant of the finding broke again
	verdictNotReproduced = "not reproduced" // every invariant of the finding held
)

// replayOne plays a check-agent finding's file (its recheck section) to
// the agent, as check-agent played the case (its API, its session
// bound), and re-checks the invariants that broke under the finding's
// limits: exit status 3 when one breaks again, 0 when they all hold.
func replayOne(ctx context.Context, s *scenarios.Scenario, a scenarios.Agent) (agentVerdict, int) {
	v := agentVerdict{Name: s.Name, File: s.File}
	re, out, err := wirecheck.ReplayFinding(ctx, s, a)
	v.collected(out)
	if err != nil {
		v.Verdict, v.Error = reports.VerdictError, err.Error()
		return v, exitBadInput
	}
	v.Compared = []string{"recheck.invariants (" + strings.Join(s.Recheck.Invariants, ", ") + ") under recheck.limits"}
	v.NotCompared = []string{"expect (loopsim's own loop on the schedule, for simulate run)"}
	v.Broke, v.Held = re.Broke, re.Held
	if re.Reproduced() {
		v.Verdict = verdictReproduced
		return v, simExitViolations
	}
	v.Verdict = verdictNotReproduced
	return v, exitPass
}

// agentMarks are the marks in the order the tally counts them, each with
// the word the verdict line starts with.
var agentMarks = []struct{ verdict, word, tally string }{
	{string(scenarios.MarkPass), "PASS", "passed"},
	{string(scenarios.MarkFail), "FAIL", "failed"},
	{string(scenarios.MarkNothingExpected), "RAN", "ran with nothing expected"},
	{string(scenarios.MarkNotApplied), "NOT APPLIED", "not applied"},
	{verdictReproduced, "REPRODUCED", "reproduced"},
	{verdictNotReproduced, "NOT REPRODUCED", "not reproduced"},
	{reports.VerdictError, "ERROR", "not judged"},
}

// agentTally is the summary line: how many runs got each mark.
func agentTally(t map[string]int) string {
	parts := []string{fmt.Sprintf("%d passed", t[string(scenarios.MarkPass)]), fmt.Sprintf("%d failed", t[string(scenarios.MarkFail)])}
	for _, m := range agentMarks[2:] {
		if n := t[m.verdict]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, m.tally))
		}
	}
	return strings.Join(parts, ", ")
}

// markWord is the word a verdict line starts with.
func markWord(verdict string) string {
	for _, m := range agentMarks {
		if m.verdict == verdict {
			return m.word
		}
	}
	return strings.ToUpper(verdict)
}

// agentIndent indents a verdict's detail lines under its name, past the
// longest mark.
const agentIndent = "               "

func writeAgentVerdict(w io.Writer, v agentVerdict, verbose bool) {
	word := markWord(v.Verdict)
	if v.Verdict == reports.VerdictError {
		fmt.Fprintf(w, "%-14s %-40s %s\n", word, v.Name, v.Error)
	} else {
		fmt.Fprintf(w, "%-14s %-40s exit %-3d %-24s %s\n", word, v.Name, v.Exit, v.Result, scenarios.Strip(v.Requests))
	}
	var detail strings.Builder
	if len(v.NotApplied) > 0 {
		fmt.Fprintf(&detail, "not applied: %s (the agent ran at its own setting: the scenario does not judge it)\n", strings.Join(v.NotApplied, ", "))
	}
	switch {
	case v.Verdict == reports.VerdictError:
	case len(v.Compared) == 0:
		fmt.Fprintf(&detail, "ran, nothing expected: nothing the scenario expects is on the wire; not compared: %s\n", strings.Join(v.NotCompared, "; "))
	default:
		fmt.Fprintf(&detail, "compared: %s\n", strings.Join(v.Compared, ", "))
		if verbose && len(v.NotCompared) > 0 {
			fmt.Fprintf(&detail, "not compared: %s\n", strings.Join(v.NotCompared, "; "))
		}
	}
	if len(v.Broke) > 0 {
		detail.WriteString("broke again:\n" + indent(strings.Join(v.Broke, "\n"), "  "))
	}
	if len(v.Held) > 0 {
		fmt.Fprintf(&detail, "held: %s\n", strings.Join(v.Held, ", "))
	}
	if verbose && len(v.Applied) > 0 {
		fmt.Fprintf(&detail, "applied: %s\n", strings.Join(v.Applied, "; "))
	}
	if v.Diff != "" {
		detail.WriteString("departed:\n" + indent(v.Diff, "  "))
	}
	if verbose {
		detail.WriteString("last output: " + v.LastOutput + "\n")
		if v.Stderr != "" {
			detail.WriteString("stderr:\n" + v.Stderr)
		}
	}
	fmt.Fprint(w, indent(detail.String(), agentIndent))
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.SplitAfter(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "")
}

// interruptContext is cancelled by Ctrl-C, so that the agent running is
// killed and the verdicts so far are printed.
func interruptContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs, stop := serveSignals()
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { stop(); cancel() }
}
