package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loopsim/loopsim/reports"
	"github.com/loopsim/loopsim/sim"
)

// shardOf is the shard the flags ask for (Count 0: the whole run),
// checked against the other flags.
func (o *simOptions) shardOf() (sim.Shard, error) {
	if o.shards < 0 {
		return sim.Shard{}, fmt.Errorf("-shards %d is negative", o.shards)
	}
	if o.shards > 0 {
		if o.shard != "" || o.shardEnv != "" {
			return sim.Shard{}, errors.New("-shards runs every shard: give it without -shard and -shard-index-env")
		}
		if o.replay != "" {
			return sim.Shard{}, errors.New("-replay replays one episode: give it without -shards")
		}
		if o.shards > o.episodes {
			return sim.Shard{}, fmt.Errorf("-shards %d: more shards than the %d episodes", o.shards, o.episodes)
		}
		return sim.Shard{}, nil
	}
	spec := o.shard
	if o.shardEnv != "" {
		if spec == "" || strings.Contains(spec, "/") {
			return sim.Shard{}, fmt.Errorf("-shard-index-env %s: give -shard as the number of shards alone (the index comes from $%s), not %q", o.shardEnv, o.shardEnv, spec)
		}
		v, ok := os.LookupEnv(o.shardEnv)
		if !ok {
			return sim.Shard{}, fmt.Errorf("-shard-index-env %s: the environment variable is not set", o.shardEnv)
		}
		spec = strings.TrimSpace(v) + "/" + spec
	}
	if spec == "" {
		return sim.Shard{}, nil
	}
	sh, err := sim.ParseShard(spec)
	if err != nil {
		if o.shardEnv != "" {
			return sim.Shard{}, fmt.Errorf("-shard with the index from $%s: %w", o.shardEnv, err)
		}
		return sim.Shard{}, fmt.Errorf("-shard: %w", err)
	}
	if o.replay != "" {
		return sim.Shard{}, errors.New("-replay replays one episode: give it without -shard")
	}
	if sh.Count > o.episodes {
		return sim.Shard{}, fmt.Errorf("-shard %s: more shards than the %d episodes", sh, o.episodes)
	}
	return sh, nil
}

// runArgs are the flags that make the run: a shard's, the merge's and a
// local shard process's plan is rebuilt from them. The flags that only
// say where and how fast (-out, -record, -workers, -progress, -plots,
// the shard) are left out.
func (o *simOptions) runArgs() []string {
	args := []string{"-n", strconv.Itoa(o.episodes), "-seed", strconv.FormatUint(o.seed, 10), "-profile", o.profiles}
	if o.workload != "" {
		args = append(args, "-workload", o.workload)
	}
	if o.swarm {
		args = append(args, "-swarm")
	}
	for _, s := range o.sets {
		args = append(args, "-set", s)
	}
	for _, s := range o.sweeps {
		args = append(args, "-sweep", s)
	}
	return append(args, "-prices", o.prices, "-check="+strconv.FormatBool(o.check), "-transcripts", o.transcripts,
		"-calibrate", strconv.Itoa(o.calibrate))
}

// The keys of a shard file's run description (sim.ShardFile.Run).
const (
	runArgsKey     = "args"     // runArgs, as JSON
	runBuildKey    = "build"    // the loopsim build, as JSON
	runSettingsKey = "settings" // a digest of the settings, every value
	runRecordKey   = "record"   // "yes" when the shard recorded its rows
)

// shardRun describes the run a shard of plan p belongs to.
func shardRun(p *simPlan, o *simOptions) (map[string]string, error) {
	args, err := json.Marshal(o.runArgs())
	if err != nil {
		return nil, err
	}
	build, err := json.Marshal(buildIdentity())
	if err != nil {
		return nil, err
	}
	digest, err := settingsDigest(p.settings)
	if err != nil {
		return nil, err
	}
	rec := "no"
	if o.record != "" {
		rec = "yes"
	}
	return map[string]string{runArgsKey: string(args), runBuildKey: string(build), runSettingsKey: digest, runRecordKey: rec}, nil
}

// settingsDigest is a digest of every value of the settings (policy,
// model, workload), so that a workload file changed between the shards
// and the merge is caught.
func settingsDigest(settings []sim.Setting) (string, error) {
	b, err := json.Marshal(settings)
	if err != nil {
		return "", fmt.Errorf("settings: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// shardName is the file name of shard sh's results.
func shardName(sh sim.Shard) string { return fmt.Sprintf("shard-%d-of-%d.shard", sh.Index, sh.Count) }

// shardRecordName is the file name of shard file name's record.
func shardRecordName(name string) string { return strings.TrimSuffix(name, ".shard") + ".parquet" }

// simulateShard runs one shard and writes its results to -out, marked
// partial when interrupted (Ctrl-C), as a whole run writes its summary.
// A shard exits 0 when its episodes broke invariants (the merge exits 3):
// an engine must not retry a shard for what it found.
func simulateShard(ctx context.Context, stopSignals func(), p *simPlan, o *simOptions, stdout, stderr io.Writer) int {
	run, err := shardRun(p, o)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: shard %s: %v\n", p.shard, err)
		return simExitFailed
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		fmt.Fprintf(stderr, "simulate: output folder: %v\n", err)
		return simExitFailed
	}
	file := filepath.Join(o.out, shardName(p.shard))
	cfg := sim.Config{Settings: p.settings, Episodes: o.episodes, Seed: o.seed, Workers: o.workers, Prices: p.prices, Shard: p.shard}
	if o.check {
		cfg.Check = sim.CheckProperties
	}
	var bar *progressBar
	if o.progress && isTerminal(stderr) {
		bar = newProgressBar(stderr)
		cfg.Progress = bar.update
	}
	if testHookProgress != nil {
		cfg.Progress = testHookProgress
	}
	var rec *recording
	if o.record != "" {
		lo, hi := p.shard.Range(o.episodes)
		h := reports.Header{Command: p.command, Seed: o.seed, Episodes: hi - lo, FirstEpisode: lo, Prices: p.prices, Checked: o.check,
			Settings: p.settings, Build: buildInfo()}
		if rec, err = startRecordingHeader(shardRecordName(file), h, &cfg); err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return simExitFailed
		}
	}
	start := time.Now() // shown and kept in the shard file, never decided on
	res, err := sim.Run(ctx, cfg)
	bar.done()
	partial := err != nil && res != nil && res.Partial
	if err != nil {
		if rec != nil {
			rec.abort()
		}
		fmt.Fprintf(stderr, "simulate: shard %s: %v\n", p.shard, err)
		if !partial {
			return simExitFailed
		}
		stopSignals()
	}
	if rec != nil && !partial {
		if err := rec.close(nil); err != nil {
			fmt.Fprintf(stderr, "simulate: shard %s: %v\n", p.shard, err)
			return simExitFailed
		}
	}
	elapsed := time.Since(start)
	sf := sim.NewShardFile(res, run, elapsed.Seconds())
	if err := writeFile(file, sf.Write); err != nil {
		fmt.Fprintf(stderr, "simulate: shard %s: %v\n", p.shard, err)
		return simExitFailed
	}
	if partial {
		fmt.Fprintf(stdout, "interrupted: wrote %s with the %d episodes that finished, marked partial (simulate merge refuses it)\n", file, sf.Done)
		return simExitInterrupted
	}
	lo, hi := p.shard.Range(o.episodes)
	fmt.Fprintf(stdout, "shard %s: episodes %d to %d of each of %d settings in %.1f s; wrote %s\n", p.shard, lo, hi-1, len(p.settings), elapsed.Seconds(), file)
	if rec != nil {
		fmt.Fprintf(stdout, "wrote %s\n", shardRecordName(file))
	}
	return simExitOK
}
