package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopsim/loopsim/agents"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/properties/wirecheck"
	"github.com/loopsim/loopsim/scenarios"
)

func init() {
	register(command{name: "check-agent", summary: "property-test an agent process over the wire: generated fault schedules, wire invariants, a minimal failing schedule", run: runCheckAgent})
}

// checkExitInterrupted is check-agent's status when Ctrl-C stopped it
// before it found a violation (the report of what finished is written).
const checkExitInterrupted = simExitInterrupted

// checkAgentUsage is check-agent's help, before its flags.
const checkAgentUsage = `usage: simulate check-agent (--preset NAME [--cmd PATH] | --cmd 'COMMAND') [-api LIST] [-n N | -time BUDGET] [-seed S] [-out DIR] [flags]
       simulate check-agent (--preset A [--cmd P] | --cmd 'C') (-against-preset B [-against-cmd P2] | -against-cmd 'C2' | -against-env K=V...) [-tolerance N] [flags]

Property-based fault testing of an agent process over the wire
(docs/check-agent.md): rapid draws fault schedules from the seed; each
case starts the fake API server (every API) playing one schedule and runs
the agent once against it, as simulate agent does (a preset's fresh
temporary home, its own process group, every API's base-URL variable,
LOOPSIM_API naming the case's API, killed after -timeout); the wire
invariants are checked over the server's records, the exit status and
the time taken. A case that breaks one is played again on the same
schedule: when the re-run does not break the same it is reported as
flaky and the search goes on; when it does, the schedule is shrunk to a
minimal one (a run per candidate; -time bounds the shrinking too), which
is played once more. Progress (cases, violations, elapsed, ETA) goes to
stderr; Ctrl-C stops, keeping what finished.

Written under -out: check-agent.json (every case: its schedule, outcome
and the invariants it broke), report.html (the same as one HTML file:
each finding's minimal schedule and the timeline of its requests, every
case in a table that sorts) and, for a finding, its minimal schedule
as a scenario file (wirecheck-NAME.yaml) with the commands that replay
it (wirecheck-NAME.replay). -otlp, -otlp-endpoint and -timeline export
every case played from the server's records, a trace (a timeline
process) per case named by its seed and phase; the minimal schedule's
last run is "seed S replay (minimal)" (docs/otel.md).

A differential run (-against-*) plays the same schedules against a
second agent (another agent, another version with -against-cmd, or the
same one under -against-env settings) and reports the schedules where
the outcomes differ (exit status, final event, request count beyond
-tolerance), each re-run and shrunk to a minimal one the same way.

Exit status: 0 when no violation (difference) was found (a flaky one is reported),
3 when one was, 2 on bad input (an unknown preset, a missing binary, a
bad flag, an agent that never calls the server), 130 when interrupted
before a violation was found.

`

// checkAgentOptions are check-agent's flags.
type checkAgentOptions struct {
	preset, command, apis, out, skip string
	cases                            int
	budget, timeout, shrinkTime      time.Duration
	seed                             uint64
	maxRetries, maxCompactions       int
	maxSteps                         int
	retryAfters                      string
	slack                            time.Duration
	env                              []string
	inherit                          bool
	// export writes every case played for -otlp, -otlp-endpoint, -timeline.
	export *exportFlags
	// the second agent of a differential run
	againstPreset, againstCmd string
	againstEnv                []string
	tolerance                 int
}

// differential says whether a second agent was named.
func (opt *checkAgentOptions) differential() bool {
	return opt.againstPreset != "" || opt.againstCmd != "" || len(opt.againstEnv) > 0
}

// checkAgentFlags declares check-agent's flags into the options it
// returns.
func checkAgentFlags(stderr io.Writer) (*flag.FlagSet, *checkAgentOptions) {
	opt := &checkAgentOptions{export: &exportFlags{}}
	fs := flag.NewFlagSet("check-agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opt.export.register(fs)
	fs.StringVar(&opt.preset, "preset", "", "check a released agent by its preset ("+strings.Join(agents.Names(), ", ")+")")
	fs.StringVar(&opt.command, "cmd", "", "the agent command, run with sh -c (without --preset); with --preset, the path of the agent's binary (default: its name on PATH)")
	fs.StringVar(&opt.apis, "api", "", "the APIs a case may be served on, comma-separated (default: the preset's API; messages for --cmd)")
	fs.IntVar(&opt.cases, "n", 0, "how many cases to draw (default 20 without -time)")
	fs.DurationVar(&opt.budget, "time", 0, "time budget of the whole check, shrinking included (a finding is shrunk for at least a quarter of it)")
	fs.Uint64Var(&opt.seed, "seed", 0, "the first case's seed (case i: seed+i); 0 picks one, printed at the start")
	fs.StringVar(&opt.out, "out", ".", "the folder the report and a finding's minimal scenario are written to")
	fs.DurationVar(&opt.timeout, "timeout", 3*time.Minute, "bound on one session: the agent's process group is killed then (session-ends)")
	fs.DurationVar(&opt.shrinkTime, "shrink-time", wirecheck.DefaultShrinkTime, "bound on shrinking when there is no -time")
	fs.IntVar(&opt.maxRetries, "max-retries", wirecheck.DefaultMaxRetries, "the agent's retry budget: more than this many retries in a row break bounded-retries")
	fs.IntVar(&opt.maxCompactions, "max-compactions", wirecheck.DefaultMaxCompactions, "compaction requests in a row without progress allowed (bounded-compaction)")
	fs.IntVar(&opt.maxSteps, "max-steps", wirecheck.DefaultMaxSteps, "bound on a schedule's steps")
	fs.StringVar(&opt.retryAfters, "retry-after", "", "the retry-afters a rate limit may carry, comma-separated durations (default 0,40ms,120ms)")
	fs.DurationVar(&opt.slack, "slack", 0, "how much sooner than a retry-after a request may come (default 20ms)")
	fs.StringVar(&opt.skip, "skip", "", "invariants not to check, comma-separated")
	fs.BoolVar(&opt.inherit, "inherit-env", false, "pass this process's whole environment to the agent (by default only "+strings.Join(scenarios.AgentBaseEnv, ", ")+")")
	fs.Func("env", "set `NAME=VALUE` in the agent's environment (repeatable)", func(v string) error {
		return addEnv(&opt.env, v)
	})
	fs.StringVar(&opt.againstPreset, "against-preset", "", "a differential run: the same schedules against this preset too (default: the first agent's preset when -against-cmd or -against-env is given)")
	fs.StringVar(&opt.againstCmd, "against-cmd", "", "a differential run: the second agent's command (with a preset, its binary)")
	fs.Func("against-env", "a differential run: set `NAME=VALUE` for the second agent, on top of -env (repeatable; alone: one agent under two settings)", func(v string) error {
		return addEnv(&opt.againstEnv, v)
	})
	fs.IntVar(&opt.tolerance, "tolerance", 0, "a differential run: how many requests the two runs of a case may differ by")
	fs.Usage = func() {
		fmt.Fprint(stderr, checkAgentUsage)
		fs.PrintDefaults()
	}
	return fs, opt
}

// addEnv appends a NAME=VALUE flag's value to env.
func addEnv(env *[]string, v string) error {
	if name, _, ok := strings.Cut(v, "="); !ok || name == "" || strings.ContainsAny(name, " \t") {
		return fmt.Errorf("want NAME=VALUE, got %q", v)
	}
	*env = append(*env, v)
	return nil
}

// checkHookProgress, when set (by tests), sees every progress report.
var checkHookProgress func(wirecheck.Progress)

func runCheckAgent(args []string, stdout, stderr io.Writer) int {
	fs, opt := checkAgentFlags(stderr)
	if err := fs.Parse(args); err == flag.ErrHelp {
		return exitPass
	} else if err != nil {
		return exitBadInput
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "check-agent: unexpected arguments %q\n", fs.Args())
		return exitBadInput
	}
	sub, err := opt.subject()
	if err != nil {
		fmt.Fprintf(stderr, "check-agent: %v\n", err)
		return exitBadInput
	}
	o, err := opt.options(sub)
	if err != nil {
		fmt.Fprintf(stderr, "check-agent: %v\n", err)
		return exitBadInput
	}
	cfg := opt.searchConfig()
	fmt.Fprintf(stderr, "check-agent: %s, seed %d (-seed %d replays these schedules), %s\n", sub.name, cfg.Seed, cfg.Seed, budgetText(cfg))
	ctx, stop := interruptContext()
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	firstErr := ""
	cfg.Progress = func(p wirecheck.Progress) {
		if p.Done == 1 && p.Phase == wirecheck.PhaseSearch && p.Errors == 1 {
			firstErr = "the first case could not be judged"
			cancel()
		}
		fmt.Fprintln(stderr, progressLine(p))
		if checkHookProgress != nil {
			checkHookProgress(p)
		}
	}
	var res *wirecheck.Result
	if opt.differential() {
		against, aerr := opt.againstSubject(sub)
		if aerr != nil {
			fmt.Fprintf(stderr, "check-agent: %v\n", aerr)
			return exitBadInput
		}
		res, err = wirecheck.Differ(ctx, wirecheck.Process(sub.agent), wirecheck.Process(against.agent), o,
			wirecheck.DiffConfig{SearchConfig: cfg, Tolerance: opt.tolerance, Against: against.name})
	} else {
		res, err = wirecheck.Search(ctx, wirecheck.Process(sub.agent), o, cfg)
	}
	if err != nil {
		fmt.Fprintf(stderr, "check-agent: %v\n", err)
		return exitBadInput
	}
	if firstErr != "" && len(res.Cases) > 0 {
		fmt.Fprintf(stderr, "check-agent: %s: %s\n", firstErr, res.Cases[0].Error)
		return exitBadInput
	}
	for i := range res.Findings {
		f := &res.Findings[i]
		f.Replay = sub.replay(opt, args, filepath.Join(opt.out, f.File), f.Seed, res.Against == "")
	}
	paths, err := res.Write(opt.out)
	if err == nil {
		var page string
		if page, err = writeCheckAgentHTML(res, opt.out); err == nil {
			paths = append(paths, page)
		}
	}
	if err == nil {
		for _, run := range checkAgentRuns(res) {
			opt.export.addAgent(run)
		}
		err = opt.export.write(context.Background())
	}
	writeCheckSummary(stdout, res, paths)
	if err != nil {
		fmt.Fprintf(stderr, "check-agent: %v\n", err)
		return exitBadInput
	}
	switch {
	case res.Real():
		return simExitViolations
	case res.Interrupted:
		return checkExitInterrupted
	}
	return exitPass
}

// checkSubject is the agent checked: how to run it and what to call it.
type checkSubject struct {
	name  string
	agent scenarios.Agent
	// preset is the preset, when the agent is one.
	preset *agents.Preset
	// model is what the agent asks for.
	model loop.ModelInfo
}

// subject is the agent of --preset and --cmd, its binary checked.
func (opt *checkAgentOptions) subject() (checkSubject, error) {
	return agentSubject(opt.preset, opt.command, opt.env, opt.inherit)
}

// agentSubject is the agent of a preset name and a command (the preset's
// binary, or a shell command without a preset), with env added.
func agentSubject(preset, command string, env []string, inherit bool) (checkSubject, error) {
	var sub checkSubject
	if preset != "" {
		p, err := agents.Lookup(preset)
		if err != nil {
			return sub, fmt.Errorf("--preset: %w", err)
		}
		bin, err := p.Find(command)
		if err != nil {
			return sub, fmt.Errorf("--preset: %w", err)
		}
		if _, err := exec.LookPath(bin); err != nil {
			return sub, fmt.Errorf("--cmd: the binary of preset %s: %w", p.Name, err)
		}
		sub = checkSubject{name: p.Name, agent: p.Agent(bin), preset: &p, model: presetModel(p)}
	} else {
		if strings.TrimSpace(command) == "" {
			return sub, fmt.Errorf("--preset NAME or --cmd 'COMMAND' is required")
		}
		if first := strings.Fields(command)[0]; !strings.Contains(first, "=") {
			if _, err := exec.LookPath(first); err != nil {
				return sub, fmt.Errorf("--cmd: %w", err)
			}
		}
		sub = checkSubject{name: "cmd", agent: scenarios.Agent{Command: command}, model: wirecheck.DefaultModel}
	}
	sub.agent.Env, sub.agent.InheritEnv = env, inherit
	return sub, nil
}

// againstSubject is the second agent of a differential run: the
// -against-preset (else the first agent's preset) run from -against-cmd
// (else, for the same preset, the first agent's binary), with -env and
// then -against-env.
func (opt *checkAgentOptions) againstSubject(first checkSubject) (checkSubject, error) {
	preset, command := opt.againstPreset, opt.againstCmd
	if preset == "" && first.preset != nil && (command == "" || strings.HasPrefix(command, "/") || !strings.Contains(command, " ")) {
		preset = first.preset.Name
	}
	if command == "" && (preset == opt.preset) {
		command = opt.command
	}
	env := append(append([]string(nil), opt.env...), opt.againstEnv...)
	sub, err := agentSubject(preset, command, env, opt.inherit)
	if err != nil {
		return sub, fmt.Errorf("the second agent: %w", err)
	}
	switch {
	case opt.againstCmd != "" && preset == opt.preset:
		sub.name += "@" + filepath.Base(strings.Fields(opt.againstCmd)[0])
	case len(opt.againstEnv) > 0 && sub.name == first.name:
		sub.name += "+" + strings.Join(opt.againstEnv, "+")
	}
	return sub, nil
}

// presetModel is the model a preset asks for: the catalog's entry, or
// wirecheck's default limits under the preset's name.
func presetModel(p agents.Preset) loop.ModelInfo {
	if k, err := loop.LookupModel(p.Model); err == nil {
		return k.ModelInfo
	}
	m := wirecheck.DefaultModel
	m.Name = p.Model
	return m
}

// options are the wirecheck options of the flags.
func (opt *checkAgentOptions) options(sub checkSubject) (wirecheck.Options, error) {
	o := wirecheck.Options{Name: sub.name, Model: sub.model, MaxRetries: opt.maxRetries, MaxCompactions: opt.maxCompactions,
		MaxSteps: opt.maxSteps, RetryAfterSlack: opt.slack, SessionTimeout: opt.timeout}
	switch {
	case opt.apis != "":
		o.APIs = splitList(opt.apis)
	case sub.preset != nil:
		o.APIs = []string{sub.preset.API}
	default:
		o.APIs = []string{"messages"}
	}
	o.Skip = splitList(opt.skip)
	for _, s := range splitList(opt.retryAfters) {
		d, err := time.ParseDuration(s)
		if err != nil {
			return o, fmt.Errorf("-retry-after: %w", err)
		}
		o.RetryAfters = append(o.RetryAfters, d)
	}
	switch {
	case opt.cases < 0 || opt.budget < 0:
		return o, fmt.Errorf("-n and -time must not be negative")
	case opt.timeout <= 0:
		return o, fmt.Errorf("-timeout must be positive")
	case opt.maxRetries == 0:
		return o, fmt.Errorf("-max-retries must be positive")
	}
	return o, o.Validate()
}

// searchConfig is the search's bounds: -n (20 when neither -n nor -time
// is given), -time, the seed (one from the clock when none is given).
func (opt *checkAgentOptions) searchConfig() wirecheck.SearchConfig {
	cfg := wirecheck.SearchConfig{Seed: opt.seed, Cases: opt.cases, Time: opt.budget, ShrinkTime: opt.shrinkTime}
	if cfg.Cases == 0 && cfg.Time == 0 {
		cfg.Cases = 20
	}
	if cfg.Seed == 0 {
		// no seed given: one from the clock, printed so that it replays
		cfg.Seed = uint64(time.Now().UnixNano()%1_000_000_000) + 1
	}
	return cfg
}

// replay are the commands that replay a finding: the agent on the
// minimal schedule (file), re-checking the invariants that broke under
// the same limits (a violation; a differential finding has no
// invariants to re-check), and the search (args) again from the
// finding's seed.
func (sub checkSubject) replay(opt *checkAgentOptions, args []string, file string, seed uint64, violation bool) []string {
	var agentCmd string
	if sub.preset != nil {
		agentCmd = "--preset " + sub.preset.Name
		if opt.command != "" {
			agentCmd += " --cmd " + shellWord(opt.command)
		}
	} else {
		agentCmd = "--cmd " + shellWord(opt.command)
	}
	for _, e := range opt.env {
		agentCmd += " -env " + shellWord(e)
	}
	if opt.inherit {
		agentCmd += " -inherit-env"
	}
	check := "simulate check-agent"
	for _, a := range withoutFlags(args, "seed", "n", "time", "out") {
		check += " " + shellWord(a)
	}
	check += fmt.Sprintf(" -seed %d -n 1", seed)
	search := check + "   # the search again from the finding's seed: the same case, re-run and shrunk"
	if !violation {
		return []string{search}
	}
	return []string{
		fmt.Sprintf("simulate agent %s %s   # the agent on the minimal schedule, re-checking what broke under the same limits: exit 3 when it breaks again, 0 when not", agentCmd, shellWord(file)),
		search,
	}
}

// withoutFlags is args without the named flags and their values
// (-name v, -name=v, --name v).
func withoutFlags(args []string, names ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if strings.HasPrefix(args[i], "-") && slices.Contains(names, name) {
			if !hasValue {
				i++
			}
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// shellWord quotes s for sh when it holds anything but plain word
// characters.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// splitList is a comma-separated flag's values, trimmed, empty ones
// dropped.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// budgetText says what bounds the search.
func budgetText(cfg wirecheck.SearchConfig) string {
	switch {
	case cfg.Cases > 0 && cfg.Time > 0:
		return fmt.Sprintf("up to %d cases within %s", cfg.Cases, cfg.Time)
	case cfg.Time > 0:
		return fmt.Sprintf("as many cases as fit in %s", cfg.Time)
	}
	return fmt.Sprintf("%d cases", cfg.Cases)
}

// progressLine is one line of progress on stderr.
func progressLine(p wirecheck.Progress) string {
	done := fmt.Sprint(p.Done)
	if p.Max > 0 {
		done = fmt.Sprintf("%d/%d", p.Done, p.Max)
	}
	eta := "ETA " + p.ETA.Round(time.Second).String()
	switch p.Phase {
	case wirecheck.PhaseShrink:
		eta = fmt.Sprintf("shrinking (%d candidates)", p.Shrinks)
	case wirecheck.PhaseRecheck:
		eta = "re-running the violating case"
	case wirecheck.PhaseReplay:
		eta = "replaying the minimal case"
	}
	return fmt.Sprintf("check-agent: %s cases, %s, %d flaky, %d errors, %s elapsed, %s",
		done, plural(p.Findings, "violation"), p.Flaky, p.Errors, p.Elapsed.Round(time.Second), eta)
}

// plural is n and the noun, with an s when n is not 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// writeCheckSummary prints what the check found and where it wrote it.
func writeCheckSummary(w io.Writer, res *wirecheck.Result, paths []string) {
	fmt.Fprintf(w, "check-agent: %s, seed %d: %d cases searched (%d played in all, %d not judged) in %.0f s\n",
		res.Agent, res.Seed, res.Searched, len(res.Cases), res.Errors, res.Seconds)
	if res.Interrupted {
		fmt.Fprintln(w, "interrupted: the report holds the cases that finished")
	}
	if len(res.Findings) == 0 && res.Against != "" {
		fmt.Fprintf(w, "no difference found between %s and %s\n", res.Agent, res.Against)
	} else if len(res.Findings) == 0 {
		fmt.Fprintln(w, "no violation found")
	}
	for _, f := range res.Findings {
		kind := "VIOLATION"
		if res.Against != "" {
			kind = "DIFFERENCE"
		}
		if f.Flaky {
			kind = "FLAKY (the re-run of the same schedule did not break it)"
		}
		fmt.Fprintf(w, "\n%s: %s (seed %d)\n", kind, strings.Join(f.Broken, ", "), f.Seed)
		for _, v := range f.Minimal.Violations {
			fmt.Fprintf(w, "  - %s\n", v)
		}
		if !f.Flaky {
			fmt.Fprintf(w, "minimal after %d shrinking runs (the search's case had %d faults); replayed: ", f.Shrinks, f.Found.Faults)
			if f.Reproduced {
				fmt.Fprintln(w, "broke the same again")
			} else {
				fmt.Fprintln(w, "did not break the same (treat as flaky)")
			}
		}
		fmt.Fprintf(w, "the case: %s", f.Minimal.Case())
		fmt.Fprintf(w, "%s: %s\n  exit %d, final event %q\n", res.Agent, strings.Join(f.Minimal.Requests, " "), f.Minimal.Exit, f.Minimal.FinalEvent)
		if a := f.Minimal.Against; a != nil {
			fmt.Fprintf(w, "%s: %s\n  exit %d, final event %q\n", res.Against, strings.Join(a.Requests, " "), a.Exit, a.FinalEvent)
		}
		for _, r := range f.Replay {
			fmt.Fprintf(w, "replay: %s\n", r)
		}
	}
	for _, p := range paths {
		fmt.Fprintf(w, "wrote %s\n", p)
	}
}
