package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/loopsim/loopsim/reports"
	"github.com/loopsim/loopsim/sim"
)

// recording is a record being written while the simulation runs
// (-record FILE).
type recording struct {
	file string
	f    *os.File
	rec  *reports.Recorder
}

// startRecording creates the record file and hooks a recorder to cfg.
func startRecording(file string, p *simPlan, o *simOptions, cfg *sim.Config) (*recording, error) {
	h := reports.Header{Command: p.command, Seed: o.seed, Episodes: o.episodes, Prices: p.prices, Checked: o.check,
		Settings: p.settings, Build: buildInfo()}
	return startRecordingHeader(file, h, cfg)
}

// startRecordingHeader creates the record file (and its folder, as -out's
// is made) with header h and hooks a recorder to cfg.
func startRecordingHeader(file string, h reports.Header, cfg *sim.Config) (*recording, error) {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, fmt.Errorf("-record: %w", err)
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("-record: %w", err)
	}
	rec, err := reports.NewRecorder(f, h)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("-record %s: %w", file, err)
	}
	cfg.OnEpisode = rec.Add
	return &recording{file: file, f: f, rec: rec}, nil
}

// finish plays the scenario library (the behaviour a comparison across
// commits shows) and closes the record.
func (r *recording) finish(ctx context.Context) error {
	b, err := reports.PlayLibrary(ctx)
	if err != nil {
		r.f.Close()
		return fmt.Errorf("-record %s: %w", r.file, err)
	}
	return r.close(b)
}

// close closes the record with behaviour b (nil for none).
func (r *recording) close(b *reports.Behaviour) error {
	if err := r.rec.Close(b); err != nil {
		r.f.Close()
		return fmt.Errorf("-record %s: %w", r.file, err)
	}
	if err := r.f.Close(); err != nil {
		return fmt.Errorf("-record %s: %w", r.file, err)
	}
	return nil
}

// abort closes and removes a record the simulation did not finish.
func (r *recording) abort() {
	r.f.Close()
	os.Remove(r.file)
}

// buildInfo is the build as a record names it: its stamps and, for a
// build without a VCS stamp, its executable's digest
// ([reports.ReadBuild]); for such a build also the revision of the git
// checkout its sources were compiled from, when the binary names that
// folder (a build without -trimpath) and it is one. That revision is a
// hint for a person, read from the sources' folder, never the working
// directory's: one binary names its build the same wherever it runs.
// Merging compares buildIdentity, which leaves the hint out.
var buildInfo = sync.OnceValue(func() reports.Build {
	b := buildIdentity()
	if b.Revision != "" {
		return b
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return b
	}
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = filepath.Dir(file)
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	rev, err := git("rev-parse", "HEAD")
	if err != nil {
		return b
	}
	b.Revision = rev
	if t, err := git("log", "-1", "--format=%cI"); err == nil {
		b.Time = t
	}
	if st, err := git("status", "--porcelain", "--untracked-files=no"); err == nil {
		b.Modified = st != ""
	}
	return b
})

// buildIdentity is what identifies the build: its module and VCS stamps,
// or its executable's digest when it has no VCS stamp. Shards record it;
// merge refuses shards another build wrote.
func buildIdentity() reports.Build { return reports.ReadBuild() }
