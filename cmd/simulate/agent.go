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

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/scenarios"
)

func init() {
	register(command{name: "agent", summary: "run a foreign agent command against a fake Messages API per scenario and check its requests", run: runAgents})
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
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	command := fs.String("cmd", "", "the agent command, run with sh -c (required)")
	jsonOut := fs.Bool("json", false, "print one JSON object a scenario (JSON Lines), with the request records")
	pattern := fs.String("run", "", "run only the scenarios whose name matches this regular expression")
	timeout := fs.Duration("timeout", scenarios.DefaultAgentTimeout, "bound on one scenario's run; the agent's process group is killed when it expires")
	records := fs.String("records", "", "write each scenario's request records as JSON Lines into this directory (NAME.jsonl)")
	delay := fs.Duration("delay", 0, "wait this long before each streamed event (slow streams)")
	verbose := fs.Bool("v", false, "print the agent's last output and standard error for every scenario")
	inherit := fs.Bool("inherit-env", false, "pass this process's whole environment to the command (by default only "+strings.Join(scenarios.AgentBaseEnv, ", ")+")")
	var env []string
	fs.Func("env", "set `NAME=VALUE` in the command's environment (repeatable)", func(v string) error {
		if name, _, ok := strings.Cut(v, "="); !ok || name == "" || strings.ContainsAny(name, " \t") {
			return fmt.Errorf("want NAME=VALUE, got %q", v)
		}
		env = append(env, v)
		return nil
	})
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: simulate agent --cmd 'COMMAND' [--json] [-run REGEXP] [-timeout D] [-records DIR] [-env NAME=VALUE]... [-inherit-env] SCENARIO|DIR...

Runs a foreign agent under each scenario's faults on the wire: for every
scenario it starts a fake Messages API server playing the scenario's
script, runs COMMAND (sh -c, its own process group) with
ANTHROPIC_BASE_URL at the server, ANTHROPIC_API_KEY set to a dummy key and
LOOPSIM_SCENARIO to the scenario's name, on top of a clean environment
(PATH, HOME and the locale of this one, and each -env; -inherit-env
passes all of it: an agent's policy may depend on its environment),
waits for it to exit, and checks expect.wire: the request sequence
(M:trunc, C:text, ...), the result the agent reports and its exit
status, and that every request kept the API's rules. PASS, or FAIL with a diff (-want +got), per scenario; ERROR when
the command timed out (default 5m) or exited without calling the server.

Exit status: 0 when every scenario passed, 1 when an expectation failed,
2 when a file did not load or a run could not be judged.

`)
		fs.PrintDefaults()
	}
	paths, err := parseInterleaved(fs, args)
	if err == flag.ErrHelp {
		return exitPass
	}
	if err != nil {
		return exitBadInput
	}
	if strings.TrimSpace(*command) == "" {
		fmt.Fprintln(stderr, "agent: --cmd is required: the command that runs the agent")
		return exitBadInput
	}
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "agent: name scenario files or directories")
		return exitBadInput
	}
	var filter *regexp.Regexp
	if *pattern != "" {
		if filter, err = regexp.Compile(*pattern); err != nil {
			fmt.Fprintf(stderr, "agent: -run: %v\n", err)
			return exitBadInput
		}
	}
	if *records != "" {
		if err := os.MkdirAll(*records, 0o755); err != nil {
			fmt.Fprintf(stderr, "agent: -records: %v\n", err)
			return exitBadInput
		}
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
		if filter != nil && !filter.MatchString(s.Name) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		a := scenarios.Agent{Command: *command, Env: env, InheritEnv: *inherit, Timeout: *timeout, Options: wire.Options{EventDelay: *delay}}
		v, st := agentOne(ctx, s, a)
		status = max(status, st)
		if *records != "" && len(v.Records) > 0 {
			if err := writeRecords(filepath.Join(*records, s.Name+".jsonl"), v.Records); err != nil {
				fmt.Fprintf(stderr, "agent: %v\n", err)
				status = exitBadInput
			}
		}
		switch v.Verdict {
		case "pass":
			t.passed++
		case "fail":
			t.failed++
		}
		if *jsonOut {
			b, err := json.Marshal(v)
			if err != nil {
				fmt.Fprintf(stderr, "agent: %v\n", err)
				return exitBadInput
			}
			fmt.Fprintf(stdout, "%s\n", b)
			continue
		}
		writeAgentVerdict(stdout, v, *verbose)
	}
	if !*jsonOut {
		fmt.Fprintf(stdout, "%d passed, %d failed\n", t.passed, t.failed)
	}
	return status
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
		v.Verdict, v.Error = "error", err.Error()
		return v, exitBadInput
	case out.Passed():
		v.Verdict = "pass"
		return v, exitPass
	}
	v.Verdict, v.Diff = "fail", out.Diff()
	return v, exitFail
}

func writeAgentVerdict(w io.Writer, v agentVerdict, verbose bool) {
	switch v.Verdict {
	case "error":
		fmt.Fprintf(w, "ERROR %-40s %s\n", v.Name, v.Error)
	default:
		fmt.Fprintf(w, "%-5s %-40s exit %-3d %-24s %s\n", strings.ToUpper(v.Verdict), v.Name, v.Exit, v.Result, strings.Join(v.Requests, " "))
	}
	if v.Verdict == "fail" {
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
