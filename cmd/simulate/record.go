package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

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

// buildInfo is the build's module and VCS stamps; when the build has no
// VCS stamp (go run, GOFLAGS=-buildvcs=false), the revision of the git
// checkout in the working directory, if any.
func buildInfo() reports.Build {
	b := reports.ReadBuild()
	if b.Revision != "" {
		return b
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return b
	}
	b.Revision = strings.TrimSpace(string(out))
	if t, err := exec.Command("git", "log", "-1", "--format=%cI").Output(); err == nil {
		b.Time = strings.TrimSpace(string(t))
	}
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
		b.Modified = len(strings.TrimSpace(string(st))) > 0
	}
	return b
}
