package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sim"
	"github.com/loopsim/loopsim/transcript"
)

func init() {
	register(command{name: "simulate", summary: "run the Monte Carlo simulation (the default): thousands of sessions per setting, a Markdown summary with plots in -out", run: runSimulate})
}

// Exit statuses of the simulate subcommand.
const (
	simExitOK          = 0
	simExitFailed      = 1   // the simulation could not run or its files could not be written
	simExitBadInput    = 2   // a flag or an override is wrong
	simExitViolations  = 3   // episodes broke invariants (their replay seeds are printed)
	simExitInterrupted = 130 // interrupted (Ctrl-C): what finished was written, marked partial
)

// maxViolationsShown caps the violating episodes printed per setting.
const maxViolationsShown = 3

// testHookProgress, when set (by tests), sees every finished episode.
var testHookProgress func(done, total int)

// simOptions are the simulate subcommand's flags.
type simOptions struct {
	episodes    int
	seed        uint64
	profiles    string
	sets        listFlag
	sweeps      listFlag
	swarm       bool
	check       bool
	prices      string
	out         string
	workers     int
	transcripts string
	workload    string
	calibrate   int
	replay      string
	json        bool
	fields      bool
	progress    bool
	plots       bool
	record      string
	shard       string
	shardEnv    string
	shards      int
	pareto      string
	// export writes the replayed episode for -otlp, -otlp-endpoint, -timeline.
	export exportFlags
}

// listFlag is a flag that may be given several times.
type listFlag []string

// String implements flag.Value.
func (l *listFlag) String() string { return strings.Join(*l, " ") }

// Set implements flag.Value.
func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

func simFlags(stderr io.Writer) (*flag.FlagSet, *simOptions) {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &simOptions{}
	fs.IntVar(&o.episodes, "n", 2_000, "episodes per setting")
	fs.Uint64Var(&o.seed, "seed", 1, "root seed: every episode's streams derive from it, so a seed always gives the same results")
	fs.StringVar(&o.profiles, "profile", "claude-code,seed", "profiles to compare, comma separated ("+strings.Join(loop.Profiles(), ", ")+"),\nor a policy file of your own (FILE.json: {\"name\", \"profile\", \"policy\": {field: value}}, docs/cli.md)")
	fs.Var(&o.sets, "set", "override `field=value` in every setting; repeatable. A policy field (auto_compact_buffer=20000),\na workload parameter (workload.faults.overloaded=0.01), model (a known model by name: model=claude-sonnet-4-5),\nmodel.context_window, model.max_output_tokens, fallback_model (a known model by name, or none),\nfallback_model.context_window, fallback_model.max_output_tokens or iteration_limit. -fields lists them all")
	fs.Var(&o.sweeps, "sweep", "vary `field=v1,v2,...` or field=from:to:step over settings (fields as for -set);\ngive it twice for a grid")
	fs.BoolVar(&o.swarm, "swarm", false, "swarm mode: every episode draws its own fault probabilities around the configured ones")
	fs.BoolVar(&o.check, "check", true, "check every episode against the invariants of docs/spec.md §5 (keeps each episode's trace while it is checked)")
	fs.StringVar(&o.prices, "prices", sim.DefaultPrices.String(), "dollars per million tokens: input, cache_write, cache_read, output")
	fs.StringVar(&o.out, "out", "out", "folder for summary.md, report.html (the summary as one HTML file), the plots (PNG and SVG), metrics.csv and metrics.json")
	fs.IntVar(&o.workers, "workers", runtime.GOMAXPROCS(0), "episodes played at once (the results do not depend on it)")
	fs.StringVar(&o.transcripts, "transcripts", "", "session logs to measure the calibration targets from (files or folders);\nempty: the targets kept in the repository (sim/calibration_targets.json)")
	fs.StringVar(&o.workload, "workload", "", "run on the workload `file` written by simulate calibrate (fitted to your session logs) instead of the built-in one")
	fs.IntVar(&o.calibrate, "calibrate", 2_000, "episodes of the calibration comparison")
	fs.StringVar(&o.replay, "replay", "", "replay the episode with this `seed` (printed beside each violation) under the first profile\nand the -set overrides, print its trace, and check it")
	fs.BoolVar(&o.json, "json", false, "print the summary as JSON on stdout (what metrics.json holds; the one-line-per-setting table goes to stderr);\nwith -replay: the trace as JSON Lines")
	fs.StringVar(&o.pareto, "pareto", sim.DefaultParetoAxes.String(), "the Pareto view's axes `x,y`, both minimised: failure_rate or a metric's mean per episode\n(tokens, cost_usd, wasted_tokens, requests, ...: the names of metrics.csv)")
	o.export.register(fs)
	fs.BoolVar(&o.fields, "fields", false, "list the fields -set and -sweep accept, and exit")
	fs.BoolVar(&o.plots, "plots", true, "draw the plots (false: only the summary and the metrics)")
	fs.StringVar(&o.record, "record", "", "also write a record of the run to this `file` (Parquet: every episode by seed, the settings,\nthe build, the scenario library's behaviour), for simulate compare")
	fs.StringVar(&o.shard, "shard", "", "run shard `i/n` only: a slice of the episodes of every setting, written to -out as shard-i-of-n.shard\n(with -record, its rows to shard-i-of-n.parquet beside it) for simulate merge")
	fs.StringVar(&o.shardEnv, "shard-index-env", "", "take the shard's index from environment `variable` (a Kubernetes Indexed Job's JOB_COMPLETION_INDEX);\n-shard then gives the number of shards alone")
	fs.IntVar(&o.shards, "shards", 0, "run the simulation as `n` shards, each a process of this binary, and merge them (a quick check of sharding)")
	fs.BoolVar(&o.progress, "progress", true, "show a progress bar on stderr when it is a terminal")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: simulate [flags]

Runs the query loop against thousands of sessions drawn from a stochastic
workload calibrated on real Claude Code transcripts, for each setting (a
profile, with overrides, at each point of a sweep), and writes to -out a
Markdown summary (summary.md) with plots, metrics.csv and metrics.json.

Examples:
  simulate                                    # claude-code against seed, 2,000 episodes each
  simulate -profile claude-code -sweep auto_compact_buffer=5000:30000:5000
  simulate -sweep stop_hook_block_cap=0,2,8 -set workload.faults.stop_hook_repeat=0.9
  simulate -swarm -n 10000                    # fault probabilities drawn per episode
  simulate -profile seed -replay 0x1f2e3d     # one episode's trace
  simulate -profile claude-code,codex,gemini-cli,qwen-code,opencode,mine.json   # the released policies and your own

Exit status: 0 when every episode kept every invariant; 1 when the
simulation could not run or its files could not be written; 2 for a bad
flag or override; 3 when episodes broke invariants (the first of each
setting are printed with the command that replays each; -replay exits 3
when the replayed episode breaks one); 130 when interrupted (Ctrl-C): the
episodes that finished are written, marked partial.

Flags:
`)
		fs.PrintDefaults()
	}
	return fs, o
}

func runSimulate(args []string, stdout, stderr io.Writer) int {
	fs, o := simFlags(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return simExitOK
		}
		return simExitBadInput
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "simulate: unexpected argument %q (flags only; -h lists them)\n", fs.Arg(0))
		return simExitBadInput
	}
	if o.fields {
		writeFields(stdout)
		return simExitOK
	}
	plan, err := o.plan()
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return simExitBadInput
	}
	if o.replay != "" {
		return replayEpisode(plan, o, stdout, stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	switch {
	case plan.shard.Count > 0:
		return simulateShard(ctx, stop, plan, o, stdout, stderr)
	case o.shards > 0:
		return simulateShards(ctx, plan, o, stdout, stderr)
	}
	return simulate(ctx, stop, plan, o, stdout, stderr)
}

// simPlan is what the flags ask for, checked.
type simPlan struct {
	bases    []sim.Setting
	sweeps   []sim.Sweep
	settings []sim.Setting
	prices   sim.Prices
	pareto   sim.ParetoAxes
	command  string
	shard    sim.Shard // Count 0: the whole run
}

// plan checks the flags and builds the settings.
func (o *simOptions) plan() (*simPlan, error) {
	if o.episodes < 1 {
		return nil, fmt.Errorf("-n %d: need at least one episode", o.episodes)
	}
	if o.workers < 1 {
		return nil, fmt.Errorf("-workers %d: need at least one", o.workers)
	}
	if o.calibrate < 0 {
		return nil, fmt.Errorf("-calibrate %d is negative", o.calibrate)
	}
	if len(o.sweeps) > 2 {
		return nil, fmt.Errorf("%d -sweep flags: at most two (a grid)", len(o.sweeps))
	}
	if o.transcripts != "" {
		info, err := os.Stat(o.transcripts)
		if err != nil {
			return nil, fmt.Errorf("-transcripts: %w", err)
		}
		if err := transcript.CheckSource(info); err != nil {
			return nil, fmt.Errorf("-transcripts %s: %w", o.transcripts, err)
		}
	}
	p := &simPlan{}
	var err error
	if p.prices, err = sim.ParsePrices(o.prices, sim.DefaultPrices); err != nil {
		return nil, fmt.Errorf("-prices: %w", err)
	}
	if p.pareto, err = sim.ParseParetoAxes(o.pareto); err != nil {
		return nil, fmt.Errorf("-pareto: %w", err)
	}
	names := map[string]string{}
	for _, name := range strings.Split(o.profiles, ",") {
		name = strings.TrimSpace(name)
		s, err := sim.NewSetting(name)
		if err != nil {
			return nil, fmt.Errorf("-profile: %w", err)
		}
		if other, ok := names[s.Name]; ok {
			return nil, fmt.Errorf("-profile: %s and %s are both named %q: give each setting a name of its own", other, name, s.Name)
		}
		names[s.Name] = name
		if o.workload != "" {
			wf, err := sim.ReadWorkloadFile(o.workload)
			if err != nil {
				return nil, fmt.Errorf("-workload: %w", err)
			}
			s = s.WithWorkloadFile(o.workload, wf)
		}
		if o.swarm {
			s, _ = s.With("workload.swarm", "true")
		}
		for _, kv := range o.sets {
			field, value, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("-set %q: want field=value", kv)
			}
			if s, err = s.With(strings.TrimSpace(field), value); err != nil {
				return nil, fmt.Errorf("-set: %w", err)
			}
		}
		p.bases = append(p.bases, s)
	}
	for _, spec := range o.sweeps {
		sw, err := sim.ParseSweep(spec)
		if err != nil {
			return nil, fmt.Errorf("-sweep: %w", err)
		}
		p.sweeps = append(p.sweeps, sw)
	}
	if p.settings, err = sim.Grid(p.bases, p.sweeps); err != nil {
		return nil, fmt.Errorf("-sweep: %w", err)
	}
	if o.replay == "" && o.export.wanted() {
		return nil, errors.New("-otlp, -otlp-endpoint and -timeline write one episode's trace: give -replay SEED (or use simulate run)")
	}
	if o.replay != "" && len(p.sweeps) > 0 {
		return nil, errors.New("-replay replays one setting: give its values with -set, not -sweep")
	}
	p.command = o.command()
	if p.shard, err = o.shardOf(); err != nil {
		return nil, err
	}
	return p, nil
}

// command is the command line that reproduces the simulation.
func (o *simOptions) command() string {
	parts := []string{"go run ./cmd/simulate", "-n " + strconv.Itoa(o.episodes), "-seed " + strconv.FormatUint(o.seed, 10),
		"-profile " + o.profiles}
	if o.workload != "" {
		parts = append(parts, "-workload "+o.workload)
	}
	if o.swarm {
		parts = append(parts, "-swarm")
	}
	for _, s := range o.sets {
		parts = append(parts, "-set "+s)
	}
	for _, s := range o.sweeps {
		parts = append(parts, "-sweep "+s)
	}
	if o.prices != sim.DefaultPrices.String() {
		parts = append(parts, "-prices "+o.prices)
	}
	if o.pareto != sim.DefaultParetoAxes.String() {
		parts = append(parts, "-pareto "+o.pareto)
	}
	if !o.check {
		parts = append(parts, "-check=false")
	}
	return strings.Join(parts, " ")
}

// simulate runs the simulation and writes its outputs. Interrupted (ctx
// cancelled: Ctrl-C), it stops listening for the signal (a second Ctrl-C
// ends the process at once) and writes the episodes that finished, marked
// partial.
func simulate(ctx context.Context, stopSignals func(), p *simPlan, o *simOptions, stdout, stderr io.Writer) int {
	cfg := sim.Config{Settings: p.settings, Episodes: o.episodes, Seed: o.seed, Workers: o.workers, Prices: p.prices}
	if o.check {
		cfg.Check = sim.CheckProperties
	}
	var bar *progressBar
	if o.progress && isTerminal(stderr) {
		bar = newProgressBar(stderr)
		cfg.Progress = bar.update
	}
	if testHookProgress != nil {
		show := cfg.Progress
		cfg.Progress = func(done, total int) {
			if show != nil {
				show(done, total)
			}
			testHookProgress(done, total)
		}
	}
	var rec *recording
	if o.record != "" {
		var err error
		if rec, err = startRecording(o.record, p, o, &cfg); err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return simExitFailed
		}
	}
	start := time.Now() // for the closing line only: nothing decides on it
	res, err := sim.Run(ctx, cfg)
	bar.done()
	if res != nil {
		res.SetParetoAxes(p.pareto)
	}
	if err != nil && res != nil && res.Partial {
		stopSignals()
		if rec != nil {
			rec.abort()
		}
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return writePartial(res, p, o, stdout, stderr)
	}
	if err != nil {
		if rec != nil {
			rec.abort()
		}
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return simExitFailed
	}
	if rec != nil {
		if err := rec.finish(ctx); err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return simExitFailed
		}
	}
	elapsed := time.Since(start)
	rep := &sim.Report{Command: p.command, Result: res}
	rep.Calibration, rep.CalibrationNote = calibrate(ctx, p.settings[0], o)
	if err := writeOutputs(rep, p, o.out, o.plots); err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return simExitFailed
	}
	human, err := writeJSON(rep, o, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return simExitFailed
	}
	writeBrief(human, res, elapsed)
	fmt.Fprintf(human, "\nwrote %s (with %d plots, PNG and SVG), %s, metrics.csv and metrics.json\n",
		filepath.Join(o.out, "summary.md"), len(rep.Figures), reportHTML)
	if writeViolations(human, res) > 0 {
		return simExitViolations
	}
	return simExitOK
}

// writeJSON writes the summary's JSON to stdout when -json asks for it,
// and returns where the text meant for a person goes: stdout, or stderr
// when stdout holds the JSON alone.
func writeJSON(rep *sim.Report, o *simOptions, stdout, stderr io.Writer) (io.Writer, error) {
	if !o.json {
		return stdout, nil
	}
	return stderr, rep.WriteJSON(stdout)
}

// writePartial writes the summary and the metrics of an interrupted
// simulation (no plots, no calibration), marked partial.
func writePartial(res *sim.Result, p *simPlan, o *simOptions, stdout, stderr io.Writer) int {
	rep := &sim.Report{Command: p.command, Result: res, CalibrationNote: "Not measured (interrupted)."}
	if err := writeOutputs(rep, p, o.out, false); err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return simExitFailed
	}
	human, err := writeJSON(rep, o, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return simExitFailed
	}
	writeViolations(human, res)
	fmt.Fprintf(human, "interrupted: wrote %s and the metrics of the episodes that finished, marked partial\n", filepath.Join(o.out, "summary.md"))
	return simExitInterrupted
}

// writeViolations prints the first violating episodes of each setting
// with the command that replays each, and returns how many episodes
// broke an invariant in all.
func writeViolations(w io.Writer, r *sim.Result) int {
	total := 0
	labels := r.Labels()
	for i, s := range r.Settings {
		a := s.Aggregate
		if a.ViolatingEpisodes == 0 {
			continue
		}
		total += a.ViolatingEpisodes
		fmt.Fprintf(w, "\n%s: %d episodes broke invariants%s; the first:\n", labels[i], a.ViolatingEpisodes, explainedBrief(a))
		shown := 0
		for _, ep := range a.Examples {
			if shown == maxViolationsShown {
				break
			}
			if len(ep.Violations) == 0 {
				continue
			}
			shown++
			v := ep.Violations[0]
			fmt.Fprintf(w, "  episode %d: %s%s: %s\n    replay: go run ./cmd/simulate %s -replay %#x\n", ep.Index, v.Invariant, knownFinding(v), v.Detail, s.Setting.ReplayFlags(), ep.Seed)
		}
	}
	return total
}

// knownFinding names the known finding that explains v, " (known finding
// NAME)", or is empty.
func knownFinding(v sim.Violation) string {
	if v.Finding == "" {
		return ""
	}
	return " (known finding " + v.Finding + ")"
}

// explainedBrief says how many of a's violations known findings explain:
// " (all N violations known findings: NAME)", " (N of M violations ...)",
// or nothing when none does.
func explainedBrief(a *sim.Aggregate) string {
	total, known := 0, 0
	for _, n := range a.Violations {
		total += n
	}
	var names []string
	for name, n := range a.Explained {
		known += n
		names = append(names, name)
	}
	if known == 0 {
		return ""
	}
	slices.Sort(names)
	if known == total {
		return fmt.Sprintf(" (every violation a known finding: %s)", strings.Join(names, ", "))
	}
	return fmt.Sprintf(" (%d of %d violations known findings: %s)", known, total, strings.Join(names, ", "))
}

// writeOutputs writes the plots, the summary (Markdown and HTML) and the
// metrics to dir.
func writeOutputs(rep *sim.Report, p *simPlan, dir string, plots bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	if err := removeOwnedPlots(dir); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	if plots {
		if err := writePlots(rep, p, dir); err != nil {
			return err
		}
	}
	for _, out := range []struct {
		name  string
		write func(io.Writer) error
	}{{"summary.md", rep.WriteMarkdown}, {"metrics.csv", rep.WriteCSV}, {"metrics.json", rep.WriteJSON}} {
		if err := writeFile(filepath.Join(dir, out.name), out.write); err != nil {
			return err
		}
	}
	return writeSummaryHTML(rep, dir)
}

// ownedPlots are the names of the plots simulate writes: an earlier run's
// are removed before a new run writes its own, so no stale plot sits
// beside a summary that does not show it.
var ownedPlots = []string{"context", "context-*", "tokens", "terminals", "sweep", "pareto"}

// removeOwnedPlots removes the PNG and SVG plots simulate writes from dir.
func removeOwnedPlots(dir string) error {
	for _, name := range ownedPlots {
		for _, ext := range []string{".png", ".svg"} {
			files, err := filepath.Glob(filepath.Join(dir, name+ext))
			if err != nil {
				return err
			}
			for _, f := range files {
				if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
			}
		}
	}
	return nil
}

// writePlots draws the plots into dir and lists them in rep.
func writePlots(rep *sim.Report, p *simPlan, dir string) error {
	res := rep.Result
	labels := res.Labels()
	type figure struct {
		plot    func() ([]string, error)
		caption string
	}
	var figures []figure
	// context over iterations: every setting, at most six to a figure,
	// each sample episode played by all of them
	for c := 0; c*sim.MaxContextSettings < len(res.Settings); c++ {
		var idx []int
		var chunkLabels []string
		var auto []bool
		for i := c * sim.MaxContextSettings; i < min((c+1)*sim.MaxContextSettings, len(res.Settings)); i++ {
			idx = append(idx, i)
			chunkLabels = append(chunkLabels, labels[i])
			pol := res.Settings[i].Setting.Policy
			auto = append(auto, pol.AutoCompact && !pol.ContextCollapse)
		}
		samples, err := sim.CompareSamples(res, idx)
		if err != nil {
			return err
		}
		name, title := "context", "Context over iterations, sample episodes"
		if len(res.Settings) > sim.MaxContextSettings {
			name = fmt.Sprintf("context-%d", c+1)
			title += fmt.Sprintf(" (settings %d to %d of %d)", idx[0]+1, idx[len(idx)-1]+1, len(res.Settings))
		}
		if len(idx) == 1 {
			title = chunkLabels[0] + ": " + strings.ToLower(title[:1]) + title[1:]
		}
		figures = append(figures, figure{func() ([]string, error) {
			return sim.PlotContext(dir, name, title, samples, chunkLabels, auto)
		}, "Context (the size of each main request) over the iterations of sample episodes, one per feature (the largest peak, an auto-compaction, " +
			"a reactive compaction or overflow, API retries, a stop-hook block or truncation), each played by every setting " + strings.Join(chunkLabels, ", ") +
			" in its colour (the settings play the same episodes; where their lines coincide they behaved alike). Events are marked in the setting's colour; " +
			"the window and the blocking limit (and the auto-compact threshold where auto-compact acts) are drawn across, in the setting's colour where the settings' limits differ."})
	}
	figures = append(figures, []figure{
		{func() ([]string, error) { return sim.PlotTokens(dir, res) },
			"Distribution of tokens per episode (input + output of the successful requests), log scale: one tile per setting on shared axes, its median dashed, the first setting in grey behind the others."},
		{func() ([]string, error) { return sim.PlotTerminals(dir, res) },
			"Episodes that did not complete, per setting, on one scale: on the left the failures (the loop gave up: the failure terminals, completions after an API error, halts), " +
				"on the right the endings the user, a hook or the turn cap chose (aborts, hook stops, max_turns); each segment's share and the bar's total are written."},
	}...)
	if len(p.sweeps) > 0 {
		figures = append(figures, figure{func() ([]string, error) { return sim.PlotSweep(dir, res, len(p.bases), p.sweeps) },
			"Sweep curves: mean tokens, mean cost and failure rate per episode against " + p.sweeps[0].Field + ", with 95% confidence intervals."})
	}
	if len(res.Settings) > 1 {
		figures = append(figures, figure{func() ([]string, error) { return sim.PlotPareto(dir, res) },
			"Each setting's " + p.pareto.X.String() + " against its " + p.pareto.Y.String() + " (-pareto chooses the axes), with 95% intervals on both axes and every setting labelled; " +
				"rings mark the Pareto front (the settings no other beats on both), squares the settings off the front that no setting beating them beats significantly. Nothing joins the points: no setting lies between two."})
	}
	for _, f := range figures {
		files, err := f.plot()
		if err != nil {
			return err
		}
		if len(files) > 0 {
			rep.Figures = append(rep.Figures, sim.Figure{File: files[0], Caption: f.caption})
		}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// writeBrief prints one line per setting.
func writeBrief(w io.Writer, r *sim.Result, elapsed time.Duration) {
	labels := r.Labels()
	width := 7
	for _, l := range labels {
		width = max(width, len(l))
	}
	fmt.Fprintf(w, "%-*s  %9s  %16s  %6s  %18s  %14s  %10s\n", width, "setting", "completed", "failed", "halted", "tokens (mean)", "cost (mean)", "violating")
	turns := int64(0)
	for i, s := range r.Settings {
		a := s.Aggregate
		v := "-"
		if r.Checked {
			v = strconv.Itoa(a.ViolatingEpisodes)
		}
		// ± half the 95% interval: Wilson for the failure rate, t for the means
		tc, cc := a.MeanInterval(sim.Tokens), a.MeanInterval(sim.CostMicroUSD)
		fmt.Fprintf(w, "%-*s  %8.1f%%  %16s  %6d  %18s  %14s  %10s\n", width, labels[i], 100*float64(a.Completions())/float64(max(a.Episodes, 1)),
			sim.FormatRate(a.Failures(), a.Episodes), a.Halted,
			sim.FormatTokens(a.Mean(sim.Tokens))+" ±"+sim.FormatTokens((tc.Hi-tc.Lo)/2),
			fmt.Sprintf("$%.2f ±%.2f", a.Mean(sim.CostMicroUSD)/1e6, (cc.Hi-cc.Lo)/2e6), v)
		turns += a.Sum[sim.Turns]
	}
	fmt.Fprintf(w, "\n%d episodes, %d turns in %.1f s (%.0f turns/s); ± is half the 95%% interval over the %d episodes of a setting\n",
		r.Episodes*len(r.Settings), turns, elapsed.Seconds(), float64(turns)/elapsed.Seconds(), r.Episodes)
}

// replayEpisode plays one episode again and prints its trace.
func replayEpisode(p *simPlan, o *simOptions, stdout, stderr io.Writer) int {
	seed, err := strconv.ParseUint(o.replay, 0, 64)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: -replay %q is not a seed (decimal, or hex with 0x)\n", o.replay)
		return simExitBadInput
	}
	s := p.settings[0]
	res, initial, err := sim.Replay(s, seed)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return simExitFailed
	}
	if o.json {
		err = res.Trace.WriteJSONL(stdout)
	} else {
		err = loop.WriteReadable(stdout, res.Trace)
	}
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return simExitFailed
	}
	o.export.add(fmt.Sprintf("%s seed %#x", s.Name, seed), res.Trace)
	if err := o.export.write(context.Background()); err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return simExitFailed
	}
	var violations []sim.Violation
	if o.check {
		violations = sim.CheckProperties(&s, initial, res)
	}
	// with -json stdout holds the trace alone: the violations go to stderr
	out := stdout
	if o.json {
		out = stderr
	} else {
		end := string(res.Terminal)
		if res.Halted {
			end = "halted by the iteration limit"
		}
		fmt.Fprintf(stdout, "\n%s, episode seed %#x: %s after %d iterations, %d requests\n", s.Name, seed, end, res.Stats.Iterations, res.Stats.Requests)
	}
	for _, v := range violations {
		fmt.Fprintf(out, "violation: %s at event %d%s: %s\n", v.Invariant, v.Event, knownFinding(v), v.Detail)
	}
	if len(violations) > 0 {
		return simExitViolations
	}
	return simExitOK
}
