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
	"slices"
	"strings"
	"time"

	"github.com/loopsim/loopsim/reports"
	"github.com/loopsim/loopsim/sim"
)

func init() {
	register(command{name: "merge", summary: "combine the shards of a simulation (simulate -shard i/n) into what the whole run writes", run: runMerge})
}

// mergeOptions are the merge subcommand's flags: where the merged
// outputs go; what the run was comes from the shards.
type mergeOptions struct {
	out     string
	record  string
	plots   bool
	workers int
}

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var mo mergeOptions
	fs.StringVar(&mo.out, "out", "out", "folder for summary.md, the plots, metrics.csv and metrics.json, as the whole run writes them")
	fs.StringVar(&mo.record, "record", "", "also join the shards' records (shard-i-of-n.parquet beside each shard file) into this `file`")
	fs.BoolVar(&mo.plots, "plots", true, "draw the plots")
	fs.IntVar(&mo.workers, "workers", runtime.GOMAXPROCS(0), "episodes played at once for the calibration comparison and the plots' sample episodes")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: simulate merge [flags] SHARD|DIR...

Combines the shard files written by simulate -shard i/n (a folder stands
for the shard-*.shard files in it) into exactly the summary, metrics and
plots (and, with -record, the record) the whole run writes. Shards of
different runs (flags, seed, settings, loopsim build), a missing or
repeated shard, and a shard that was interrupted are refused, naming
the files and what differs.

Exit status: 0, or 3 when episodes broke invariants, as simulate; 1 when
the outputs could not be written; 2 when the shards do not merge.

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
		fmt.Fprintln(stderr, "simulate merge: no shard files given (simulate merge -h)")
		return simExitBadInput
	}
	if mo.workers < 1 {
		fmt.Fprintf(stderr, "simulate merge: -workers %d: need at least one\n", mo.workers)
		return simExitBadInput
	}
	files, err := shardFiles(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "simulate merge: %v\n", err)
		return simExitBadInput
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return merge(ctx, files, mo, stdout, stderr)
}

// shardFiles expands the arguments: a folder stands for the shard files
// in it, in name order.
func shardFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		found, err := filepath.Glob(filepath.Join(a, "shard-*.shard"))
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no shard files (shard-*.shard) in the folder", a)
		}
		slices.Sort(found)
		out = append(out, found...)
	}
	return out, nil
}

// readShard reads one shard file.
func readShard(name string) (*sim.ShardFile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sf, err := sim.ReadShardFile(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return sf, nil
}

// merge merges the shard files names and writes what the whole run
// writes to mo.out.
func merge(ctx context.Context, names []string, mo mergeOptions, stdout, stderr io.Writer) int {
	var files []*sim.ShardFile
	for _, n := range names {
		sf, err := readShard(n)
		if err != nil {
			fmt.Fprintf(stderr, "simulate merge: %v\n", err)
			return simExitBadInput
		}
		files = append(files, sf)
	}
	p, o, err := replan(files[0], names[0])
	if err != nil {
		fmt.Fprintf(stderr, "simulate merge: %v\n", err)
		return simExitBadInput
	}
	res, err := sim.MergeShards(p.settings, files, names)
	if err != nil {
		fmt.Fprintf(stderr, "simulate %v\n", err)
		return simExitBadInput
	}
	o.out, o.record, o.plots, o.workers = mo.out, mo.record, mo.plots, mo.workers
	if o.record != "" {
		if err := mergeRecords(ctx, o.record, names, files, o.episodes); err != nil {
			fmt.Fprintf(stderr, "simulate merge: %v\n", err)
			return simExitBadInput
		}
	}
	rep := &sim.Report{Command: p.command, Result: res}
	rep.Calibration, rep.CalibrationNote = calibrate(ctx, p.settings[0], o)
	if err := writeOutputs(rep, p, o.out, o.plots); err != nil {
		fmt.Fprintf(stderr, "simulate merge: %v\n", err)
		return simExitFailed
	}
	var total, longest float64
	for _, f := range files {
		total += f.Seconds
		longest = max(longest, f.Seconds)
	}
	writeBrief(stdout, res, time.Duration(total*float64(time.Second)))
	fmt.Fprintf(stdout, "merged %d shards (the time above is theirs added up; the longest ran %.1f s)\n", len(files), longest)
	fmt.Fprintf(stdout, "\nwrote %s (with %d plots, PNG and SVG), metrics.csv and metrics.json\n", filepath.Join(o.out, "summary.md"), len(rep.Figures))
	if o.record != "" {
		fmt.Fprintf(stdout, "wrote %s\n", o.record)
	}
	if writeViolations(stdout, res) > 0 {
		return simExitViolations
	}
	return simExitOK
}

// replan rebuilds the run's plan from a shard's flags, and checks that
// it makes the settings the shard ran and that this is the loopsim that
// wrote it.
func replan(f *sim.ShardFile, name string) (*simPlan, *simOptions, error) {
	var args []string
	if err := json.Unmarshal([]byte(f.Run[runArgsKey]), &args); err != nil {
		return nil, nil, fmt.Errorf("%s: the run's flags: %w", name, err)
	}
	fs, o := simFlags(io.Discard)
	if err := fs.Parse(args); err != nil {
		return nil, nil, fmt.Errorf("%s: the run's flags %q: %w", name, strings.Join(args, " "), err)
	}
	p, err := o.plan()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: the run's flags %q: %w", name, strings.Join(args, " "), err)
	}
	build, err := json.Marshal(buildIdentity())
	if err != nil {
		return nil, nil, err
	}
	if string(build) != f.Run[runBuildKey] {
		return nil, nil, fmt.Errorf("%s was written by loopsim %s; this is loopsim %s: merge with the build that ran the shards", name, f.Run[runBuildKey], build)
	}
	digest, err := settingsDigest(p.settings)
	if err != nil {
		return nil, nil, err
	}
	if digest != f.Run[runSettingsKey] {
		return nil, nil, fmt.Errorf("%s: the settings its flags make here differ from those it ran (a -workload file changed since?)", name)
	}
	return p, o, nil
}

// mergeRecords joins the shards' records into file: the rows of each
// setting, shard after shard, under the whole run's header, with the
// scenario library's behaviour played here (the shards' build, checked),
// as a whole run's record. It reads one shard's record at a time.
func mergeRecords(ctx context.Context, file string, names []string, files []*sim.ShardFile, episodes int) error {
	order := make([]string, len(files))
	for k, f := range files {
		if f.Run[runRecordKey] != "yes" {
			return fmt.Errorf("-record: %s was run without -record: it has no rows to merge", names[k])
		}
		order[f.Shard.Index] = shardRecordName(names[k])
	}
	var rec *recording
	for s := 0; ; s++ {
		for i, rf := range order {
			r, err := reports.Open(rf)
			if err != nil {
				if rec != nil {
					rec.abort()
				}
				return fmt.Errorf("-record: %w", err)
			}
			lo, hi := (sim.Shard{Index: i, Count: len(order)}).Range(episodes)
			if r.Header.FirstEpisode != lo || r.Header.Episodes != hi-lo {
				if rec != nil {
					rec.abort()
				}
				return fmt.Errorf("-record: %s holds episodes %d to %d, shard %d/%d is %d to %d", rf, r.Header.FirstEpisode,
					r.Header.FirstEpisode+r.Header.Episodes-1, i, len(order), lo, hi-1)
			}
			if rec == nil {
				h := r.Header
				h.Episodes, h.FirstEpisode = episodes, 0
				if rec, err = startRecordingHeader(file, h, &sim.Config{}); err != nil {
					return err
				}
			}
			for _, row := range r.Setting(s) {
				rec.rec.AddRow(row)
			}
			if i == len(order)-1 && s == len(r.Header.Settings)-1 {
				return rec.finish(ctx)
			}
		}
	}
}
