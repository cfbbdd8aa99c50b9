package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/sim"
	"github.com/loopsim/loopsim/transcript"
)

func init() {
	register(command{name: "calibrate", summary: "fit the workload to your own session logs (Claude Code ~/.claude/projects, Codex rollouts); writes a workload file and a fit report", run: runCalibrate})
}

// calibrateOptions are the calibrate subcommand's flags.
type calibrateOptions struct {
	profile  string
	model    string
	sets     listFlag
	out      string
	file     string
	episodes int
	rounds   int
	seed     uint64
	workers  int
	// population fits a population from the spread between sources; cv
	// cross-validates the fit, users simulated users per held-out source.
	population bool
	cv         bool
	users      int
	// command is the command line, for the held-out figures' provenance.
	command string
}

func runCalibrate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &calibrateOptions{}
	fs.StringVar(&o.profile, "profile", "claude-code", "the profile the fit simulates")
	fs.StringVar(&o.model, "model", "", "fit only the calls of this model (as the logs name it, date suffix dropped); empty: every call")
	fs.Var(&o.sets, "set", "override `field=value` in the setting the fit simulates (as simulate -set); repeatable")
	fs.StringVar(&o.out, "out", filepath.Join("out", "calibrate"), "folder for fit.md and the quantile-quantile plots")
	fs.StringVar(&o.file, "o", "", "workload file to write (default: OUT/workload.json)")
	fs.IntVar(&o.episodes, "n", 2_000, "episodes simulated per round of the fit")
	fs.IntVar(&o.rounds, "rounds", 3, "rounds of correction after the first estimate")
	fs.Uint64Var(&o.seed, "seed", 1, "root seed of the fit's simulations")
	fs.IntVar(&o.workers, "workers", runtime.GOMAXPROCS(0), "episodes played at once (the results do not depend on it)")
	fs.BoolVar(&o.population, "population", true, "fit how sessions differ from the spread between sources (the folders holding the logs); false fits one user")
	fs.BoolVar(&o.cv, "cv", false, "also cross-validate: fit without each source in turn, predict its figures; writes cv.md and cv.json, and the held-out figures into the workload file")
	fs.IntVar(&o.users, "users", 200, "with -cv, simulated users each held-out source is compared with")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: simulate calibrate [flags] DIR|FILE...

Reads session logs (Claude Code's JSON Lines under ~/.claude/projects/,
Codex rollouts under ~/.codex/sessions/; folders are walked for *.jsonl,
subagent logs left out), fits the workload model to them (starting context,
growth per call, output per call, tools per call, calls per prompt, what
compaction leaves), and writes a workload file for simulate -workload and a
fit report (fit.md) with quantile-quantile plots and a Kolmogorov-Smirnov
distance per distribution. Malformed or foreign lines are counted and
reported, never fatal.

Logs are grouped into sources by the folder holding them (one project, one
person); with two sources or more the fit draws each session's output,
calls per prompt, tool calls, context growth and starting context from a
population whose spread is the spread between the sources. -cv holds out
each source in turn, fits the rest and reports how well the fit predicts
the source it never saw.

Example:
  simulate calibrate ~/.claude/projects
  simulate calibrate -cv ~/.claude/projects
  simulate -workload out/calibrate/workload.json

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return simExitOK
		}
		return simExitBadInput
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "calibrate: give the session logs to fit: folders or .jsonl files (-h for help)")
		return simExitBadInput
	}
	if o.file == "" {
		o.file = filepath.Join(o.out, "workload.json")
	}
	base, err := sim.NewSetting(o.profile)
	if err != nil {
		fmt.Fprintf(stderr, "calibrate: -profile: %v\n", err)
		return simExitBadInput
	}
	for _, kv := range o.sets {
		field, value, ok := strings.Cut(kv, "=")
		if !ok {
			fmt.Fprintf(stderr, "calibrate: -set %q: want field=value\n", kv)
			return simExitBadInput
		}
		if base, err = base.With(strings.TrimSpace(field), value); err != nil {
			fmt.Fprintf(stderr, "calibrate: -set: %v\n", err)
			return simExitBadInput
		}
	}
	sessions, err := sim.ReadSessions(fs.Args()...)
	if err != nil {
		fmt.Fprintf(stderr, "calibrate: %v\n", err)
		return simExitBadInput
	}
	o.command = calibrateCommand(fs)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return calibrateSessions(ctx, sessions, base, o, stdout, stderr)
}

func calibrateSessions(ctx context.Context, sessions []*transcript.Session, base sim.Setting, o *calibrateOptions, stdout, stderr io.Writer) int {
	writeReadSummary(stdout, sessions)
	if o.model == "" {
		models, byModel := sim.FiguresByModel(sessions)
		if len(models) > 1 {
			parts := make([]string, len(models))
			for i, m := range models {
				parts[i] = fmt.Sprintf("%s (%d calls)", m, byModel[m].Tools.N())
			}
			fmt.Fprintf(stdout, "models pooled: %s; -model NAME fits one\n", strings.Join(parts, ", "))
		}
	}
	real, src := fitFigures(sessions, o.model)
	if src.Calls == 0 {
		fmt.Fprintf(stderr, "calibrate: no calls to fit%s in %d logs\n", modelClause(o.model), len(sessions))
		return simExitBadInput
	}
	if o.model != "" {
		known, err := base.With("model", transcript.ModelName(o.model))
		if err != nil {
			known = base
			known.Model.Name = transcript.ModelName(o.model)
		}
		base = known
	}
	if w := window(sessions, o.model); w > 0 {
		base.Model.ContextWindow = w
	}
	fo := sim.FitOptions{Base: base, Episodes: o.episodes, Rounds: o.rounds, Seed: o.seed, Workers: o.workers}
	sources := sim.GroupSources(sessions, o.model)
	if o.population {
		fo.Population, fo.Spreads = fitPopulation(stdout, sources)
	}
	if o.cv && len(sources) < 2 {
		fmt.Fprintf(stderr, "calibrate -cv: %d source; leaving one out needs at least two (sources are the folders holding the logs)\n", len(sources))
		return simExitBadInput
	}
	fit, err := sim.FitWorkload(ctx, &real, fo)
	if err != nil {
		fmt.Fprintf(stderr, "calibrate: %v\n", err)
		return simExitBadInput
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		fmt.Fprintf(stderr, "calibrate: %v\n", err)
		return simExitFailed
	}
	if err := os.MkdirAll(filepath.Dir(o.file), 0o755); err != nil {
		fmt.Fprintf(stderr, "calibrate: %v\n", err)
		return simExitFailed
	}
	src.Fitted, src.Kept = fit.Fitted, fit.Kept
	wf := sim.WorkloadFile{Model: fit.Setting.Model, Workload: fit.Setting.Workload, Source: src}
	if o.cv {
		h, code := crossValidate(ctx, sources, fo, o, stdout, stderr)
		if code != simExitOK {
			return code
		}
		wf.HeldOut = h
	}
	if err := sim.WriteWorkloadFile(o.file, wf); err != nil {
		fmt.Fprintf(stderr, "calibrate: %v\n", err)
		return simExitFailed
	}
	qq, err := sim.PlotQQ(o.out, fit)
	if err != nil {
		fmt.Fprintf(stderr, "calibrate: %v\n", err)
		return simExitFailed
	}
	report := filepath.Join(o.out, "fit.md")
	if err := writeFile(report, func(w io.Writer) error { return sim.WriteFitReport(w, fit, sessions, qq) }); err != nil {
		fmt.Fprintf(stderr, "calibrate: %v\n", err)
		return simExitFailed
	}
	fmt.Fprintf(stdout, "\nfitted on %d calls%s, %d prompts, %d compactions; a simulation of the fit against the logs:\n", src.Calls,
		modelClause(o.model), src.Prompts, src.Compactions)
	fmt.Fprintf(stdout, "  %-26s %7s %9s %9s  %s\n", "distribution", "n real", "KS", "5% crit.", "p50 real -> simulated")
	for _, d := range fit.Distances {
		if d.Real == 0 || d.Simulated == 0 {
			fmt.Fprintf(stdout, "  %-26s %7d %9s %9s  not measured\n", d.Name, d.Real, "-", "-")
			continue
		}
		mark := ""
		if d.Differs() {
			mark = "  (distinguishable)"
		}
		fmt.Fprintf(stdout, "  %-26s %7d %9.3f %9.3f  %s -> %s%s\n", d.Name, d.Real, d.KS, d.Critical, sim.FormatTokens(d.RealQ[1]),
			sim.FormatTokens(d.SimQ[1]), mark)
	}
	fmt.Fprintf(stdout, "\nwrote %s, %s and %d quantile-quantile plots\nrun it: go run ./cmd/simulate -workload %s\n", o.file, report, len(qq), o.file)
	return simExitOK
}

// calibrateCommand is the command line as far as it decides the
// results: the flags set, but for where the files go and the workers
// (which change nothing), then the logs.
func calibrateCommand(fs *flag.FlagSet) string {
	parts := []string{"simulate calibrate"}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "out", "o", "workers":
			return
		}
		parts = append(parts, "-"+f.Name+"="+f.Value.String())
	})
	return strings.Join(append(parts, fs.Args()...), " ")
}

// fitPopulation fits the population from the sources' spread and says
// what it found; with fewer than two sources it fits none.
func fitPopulation(stdout io.Writer, sources []sim.Source) (fakemodel.Population, []sim.Spread) {
	if len(sources) < 2 {
		fmt.Fprintf(stdout, "%d source (logs are grouped by the folder holding them): no spread between sources, the fit is one user\n", len(sources))
		return fakemodel.Population{}, nil
	}
	p, spreads := sim.FitPopulation(sources)
	names := make([]string, len(sources))
	for i, s := range sources {
		names[i] = s.Name
	}
	fmt.Fprintf(stdout, "population fitted from %d sources (%s): spread of each session's factor: start_context %g, output %g, replies %g, tools %g, tool_result %g\n",
		len(sources), strings.Join(names, ", "), p.StartContext, p.Output, p.Replies, p.Tools, p.ToolResult)
	return p, spreads
}

// crossValidate runs the leave-one-source-out cross-validation, prints
// its table and writes cv.md and cv.json under the output folder.
func crossValidate(ctx context.Context, sources []sim.Source, fo sim.FitOptions, o *calibrateOptions, stdout, stderr io.Writer) (*sim.HeldOut, int) {
	cv, err := sim.CrossValidate(ctx, sources, sim.CVOptions{Fit: fo, Population: o.population, Users: o.users})
	if err != nil {
		fmt.Fprintf(stderr, "calibrate -cv: %v\n", err)
		return nil, simExitBadInput
	}
	h := sim.HeldOutOf(cv, o.command)
	kind := "one user"
	if o.population {
		kind = "a population from the other sources' spread"
	}
	fmt.Fprintf(stdout, "\nleave-one-source-out: each source predicted by the fit of the others (%s), %d simulated users of its size; error of each figure (\"out\": outside the band of 80%% of simulated users):\n",
		kind, cv.Users)
	if err := sim.WriteCVTable(stdout, cv, h); err != nil {
		fmt.Fprintf(stderr, "calibrate -cv: %v\n", err)
		return nil, simExitFailed
	}
	if err := writeFile(filepath.Join(o.out, "cv.md"), func(w io.Writer) error { return sim.WriteCVReport(w, cv, h) }); err != nil {
		fmt.Fprintf(stderr, "calibrate -cv: %v\n", err)
		return nil, simExitFailed
	}
	if err := writeFile(filepath.Join(o.out, "cv.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			HeldOut *sim.HeldOut         `json:"held_out"`
			Cells   *sim.CrossValidation `json:"cross_validation"`
		}{h, cv})
	}); err != nil {
		fmt.Fprintf(stderr, "calibrate -cv: %v\n", err)
		return nil, simExitFailed
	}
	return h, simExitOK
}

func modelClause(model string) string {
	if model == "" {
		return ""
	}
	return " of model " + model
}

// writeReadSummary prints one line per log read.
func writeReadSummary(w io.Writer, sessions []*transcript.Session) {
	var malformed, foreign int
	for _, s := range sessions {
		calls := len(s.Calls())
		inj := 0
		for _, n := range s.Injected {
			inj += n
		}
		format := string(s.Format)
		if format == "" {
			format = "unknown"
		}
		fmt.Fprintf(w, "%s: %s, %s, %d calls, %d injected user lines, %d malformed and %d foreign lines skipped\n",
			s.Name, format, s.Model(), calls, inj, s.Malformed, s.Foreign)
		malformed += s.Malformed
		foreign += s.Foreign
	}
	fmt.Fprintf(w, "%d logs, %d malformed and %d foreign lines skipped\n", len(sessions), malformed, foreign)
}

// fitFigures measures the sessions, every call or those of model.
func fitFigures(sessions []*transcript.Session, model string) (sim.Figures, sim.WorkloadSource) {
	var f sim.Figures
	var src sim.WorkloadSource
	if model == "" {
		for _, s := range sessions {
			f.AddSession(s)
		}
	} else {
		_, byModel := sim.FiguresByModel(sessions)
		if m, ok := byModel[transcript.ModelName(model)]; ok {
			f = *m
		}
	}
	for _, s := range sessions {
		used := false
		for _, e := range s.Events {
			if e.Kind == transcript.EventCall && (model == "" || e.Call.Model == transcript.ModelName(model)) {
				used = true
			}
		}
		if !used {
			continue
		}
		src.Files = append(src.Files, s.Name)
		for _, e := range s.Events {
			switch e.Kind {
			case transcript.EventPrompt:
				src.Prompts++
			case transcript.EventCompaction:
				src.Compactions++
			}
		}
	}
	src.Sessions, src.Calls = f.Sessions, f.Tools.N()
	return f, src
}

// window is the context window the logs give (Codex's), when every log
// fitted agrees on one; 0 otherwise.
func window(sessions []*transcript.Session, model string) int {
	w := 0
	for _, s := range sessions {
		if model != "" && s.Model() != transcript.ModelName(model) {
			continue
		}
		if s.Window == 0 || w != 0 && s.Window != w {
			return 0
		}
		w = s.Window
	}
	return w
}
