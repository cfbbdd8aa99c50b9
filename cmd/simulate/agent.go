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
	"github.com/loopsim/loopsim/reports"
	"github.com/loopsim/loopsim/scenarios"
)

func init() {
	register(command{name: "agent", summary: "run a foreign agent command against the fake model API server per scenario and check its requests", run: runAgents})
}

// agentVerdict is one scenario's line of `simulate agent --json`.
type agentVerdict struct {
	Name       string        `json:"name"`
	File       string        `json:"file"`
	Verdict    string        `json:"verdict"`
	Error      string        `json:"error,omitempty"`
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
	ctx, stop := interruptContext()
	defer stop()
	var t tally
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
		switch v.Verdict {
		case reports.VerdictPass:
			t.passed++
		case reports.VerdictFail:
			t.failed++
		}
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
		fmt.Fprintf(stdout, "%d passed, %d failed\n", t.passed, t.failed)
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
waits for it to exit, and checks expect.wire: the request sequence
(M:trunc, C:text, ...), the result the agent reports and its exit
status, and that every request kept the API's rules. PASS, or FAIL with a diff (-want +got), per scenario; ERROR when
the command timed out (default 5m) or exited without calling the server.
-otlp, -otlp-endpoint and -timeline export each run from the server's
records: a trace (a timeline process) per scenario (docs/otel.md).

Exit status: 0 when every scenario passed, 1 when an expectation failed,
2 when a file did not load or a run could not be judged.

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

// agentOne runs one scenario and returns its verdict and exit status.
func agentOne(ctx context.Context, s *scenarios.Scenario, a scenarios.Agent) (agentVerdict, int) {
	v := agentVerdict{Name: s.Name, File: s.File}
	out, err := scenarios.RunAgent(ctx, s, a)
	var ae *scenarios.AgentError
	if errors.As(err, &ae) && ae.Outcome != nil {
		out = ae.Outcome
	}
	if out != nil {
		v.Records, v.Requests, v.Exit = out.Records, wire.Labels(out.Records), out.Exit
		v.Result, v.LastOutput = scenarios.ReportedResult(out.Stdout), out.LastOutput
		v.ElapsedMS = out.Elapsed.Milliseconds()
		v.Stderr = lastLines(out.Stderr, 20)
	}
	switch {
	case err != nil:
		v.Verdict, v.Error = reports.VerdictError, err.Error()
		return v, exitBadInput
	case out.Passed():
		v.Verdict = reports.VerdictPass
		return v, exitPass
	}
	v.Verdict, v.Diff = reports.VerdictFail, out.Diff()
	return v, exitFail
}

func writeAgentVerdict(w io.Writer, v agentVerdict, verbose bool) {
	switch v.Verdict {
	case reports.VerdictError:
		fmt.Fprintf(w, "ERROR %-40s %s\n", v.Name, v.Error)
	default:
		fmt.Fprintf(w, "%-5s %-40s exit %-3d %-24s %s\n", strings.ToUpper(v.Verdict), v.Name, v.Exit, v.Result, strings.Join(v.Requests, " "))
	}
	if v.Verdict == reports.VerdictFail {
		fmt.Fprint(w, indent("diff (-want +got):\n"+v.Diff, "      "))
	}
	if verbose {
		fmt.Fprint(w, indent("last output: "+v.LastOutput+"\n", "      "))
		if v.Stderr != "" {
			fmt.Fprint(w, indent("stderr:\n"+v.Stderr, "      "))
		}
	}
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
