package sim

import (
	"context"
	"fmt"

	"github.com/loopsim/loopsim/loop"
)

// Calibrate plays episodes 0 to n-1 of root seed root under s and
// measures them as [ReadTranscript] measures real sessions: one user
// prompt per episode, every successful main request a call.
func Calibrate(ctx context.Context, s Setting, n int, root uint64, workers int) (Figures, error) {
	if workers <= 0 {
		workers = 1
	}
	parts := make([]Figures, workers)
	err := forEach(ctx, workers, n, func(w, j int) error {
		cs := calls{f: &parts[w]}
		pending := 0
		_, _, _, err := play(s, EpisodeSeed(root, j), func(e loop.Event) {
			switch x := e.(type) {
			case loop.RequestEvent:
				if x.Purpose == loop.PurposeMain {
					pending = x.InputTokens
				}
			case loop.ResponseEvent:
				if x.Purpose == loop.PurposeMain {
					cs.call(pending, x.Usage.OutputTokens, len(x.ToolUses))
				}
			case loop.Compaction:
				if x.OK {
					cs.compaction(x.Trigger == loop.TriggerAuto, x.TokensBefore)
				}
			}
		}, false)
		cs.end()
		return err
	})
	var f Figures
	for i := range parts {
		f.Merge(&parts[i])
	}
	if err != nil {
		return f, fmt.Errorf("calibrate: %w", err)
	}
	return f, nil
}

// Published are the figures the transcripts' README gives (Claude Code
// 2.x on 200,000-token models), for reference beside those measured.
var Published = map[string]string{
	"start context, median":          "22k-26k",
	"growth per call, p10":           "156",
	"growth per call, median":        "523",
	"growth per call, p90":           "2,755",
	"growth per call, p99":           "10,872",
	"growth per call, mean":          "1,226",
	"output per call, median":        "171",
	"output per call, p90":           "744",
	"output per call, p99":           "2,640",
	"tools per call, mean":           "1.1-1.3",
	"auto-compact at, median":        "155k-170k",
	"context after compaction, mean": "34k-35k",
}

// CalibrationRow compares one figure, simulated against real.
type CalibrationRow struct {
	// Figure names the figure ("growth per call, median").
	Figure string `json:"figure"`
	// Published is the README's figure, if it gives one.
	Published string `json:"published,omitempty"`
	// Real is the figure measured from the transcripts.
	Real float64 `json:"real"`
	// Simulated is the figure measured from the simulation.
	Simulated float64 `json:"simulated"`
	// Tolerance is the largest relative difference accepted.
	Tolerance float64 `json:"tolerance"`
	// OK is set when Simulated is within Tolerance of Real.
	OK bool `json:"ok"`
}

// Diff is the relative difference (Simulated - Real) / Real.
func (r CalibrationRow) Diff() float64 {
	if r.Real == 0 {
		return 0
	}
	return (r.Simulated - r.Real) / r.Real
}

// Compare lines up the simulated figures against the real ones, each
// with its tolerance: tight where the transcripts hold hundreds of
// values (per-call sizes), loose where they hold a few (tails, compactions,
// 27 user prompts).
func Compare(real, simulated *Figures) []CalibrationRow {
	type fig struct {
		name string
		tol  float64
		get  func(f *Figures) float64
	}
	q := func(s func(f *Figures) *Sample, p float64) func(f *Figures) float64 {
		return func(f *Figures) float64 { return s(f).Quantile(p) }
	}
	mean := func(s func(f *Figures) *Sample) func(f *Figures) float64 {
		return func(f *Figures) float64 { return s(f).Mean() }
	}
	start := func(f *Figures) *Sample { return &f.StartContext }
	growth := func(f *Figures) *Sample { return &f.Growth }
	output := func(f *Figures) *Sample { return &f.Output }
	tools := func(f *Figures) *Sample { return &f.Tools }
	prompts := func(f *Figures) *Sample { return &f.CallsPerPrompt }
	at := func(f *Figures) *Sample { return &f.CompactAt }
	after := func(f *Figures) *Sample { return &f.AfterCompact }
	figs := []fig{
		{"start context, median", 0.15, q(start, 0.5)},
		{"growth per call, p10", 0.5, q(growth, 0.1)},
		{"growth per call, median", 0.2, q(growth, 0.5)},
		{"growth per call, p90", 0.25, q(growth, 0.9)},
		{"growth per call, p99", 0.4, q(growth, 0.99)},
		{"growth per call, mean", 0.2, mean(growth)},
		{"output per call, median", 0.2, q(output, 0.5)},
		{"output per call, p90", 0.25, q(output, 0.9)},
		{"output per call, p99", 0.4, q(output, 0.99)},
		{"tools per call, mean", 0.15, mean(tools)},
		{"calls per user prompt, median", 0.5, q(prompts, 0.5)},
		{"calls per user prompt, mean", 0.5, mean(prompts)},
		{"auto-compact at, median", 0.05, q(at, 0.5)},
		{"context after compaction, mean", 0.15, mean(after)},
	}
	out := make([]CalibrationRow, 0, len(figs))
	for _, f := range figs {
		r := CalibrationRow{Figure: f.name, Published: Published[f.name], Real: f.get(real), Simulated: f.get(simulated), Tolerance: f.tol}
		d := r.Diff()
		r.OK = r.Real > 0 && d <= r.Tolerance && d >= -r.Tolerance
		out = append(out, r)
	}
	return out
}
