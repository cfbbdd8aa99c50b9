package sim

import (
	"context"
	"fmt"
	"slices"

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
		seed := EpisodeSeed(root, j)
		return measureEpisode(s, seed, StreamsOf(seed), &parts[w])
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

// CalibrateUsers plays users groups of perUser episodes under s, each
// group one simulated user: its episodes share the session seed
// [UserSeed], so they draw the same parameters from the workload's
// population, as the sessions of one real source share theirs. It
// returns each user's figures, measured as [Calibrate] measures. Episode
// k of user u is episode u*perUser+k of root seed root.
func CalibrateUsers(ctx context.Context, s Setting, users, perUser int, root uint64, workers int) ([]Figures, error) {
	if workers <= 0 {
		workers = 1
	}
	perUser = max(perUser, 1)
	out := make([]Figures, users)
	err := forEach(ctx, workers, users, func(_, u int) error {
		for k := range perUser {
			seed := EpisodeSeed(root, u*perUser+k)
			st := StreamsOf(seed)
			st.Model.Session = UserSeed(root, u)
			if err := measureEpisode(s, seed, st, &out[u]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("calibrate users: %w", err)
	}
	return out, nil
}

// measureEpisode plays one episode with streams st and adds what it
// measured to f: one user prompt, every successful main request a call.
func measureEpisode(s Setting, seed uint64, st Streams, f *Figures) error {
	cs := calls{f: f}
	pending := 0
	_, _, _, err := playStreams(s, seed, st, func(e loop.Event) {
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
	// N is the number of real values the figure was measured on.
	N int `json:"n"`
	// OK is set when Simulated is within Tolerance of Real.
	OK bool `json:"ok"`
	// HeldOut is how well the workload's fit predicted this figure of
	// sources it never saw, when known (see [HeldOut]).
	HeldOut *CVFigure `json:"held_out,omitempty"`
}

// Diff is the relative difference (Simulated - Real) / Real.
func (r CalibrationRow) Diff() float64 {
	if r.Real == 0 {
		return 0
	}
	return (r.Simulated - r.Real) / r.Real
}

// figure is one calibration figure: its name, its tolerance and how it is
// measured from a set of figures.
type figure struct {
	name string
	tol  float64
	get  func(f *Figures) float64
	n    func(f *Figures) int
}

// figureTable lists the calibration figures, each with its tolerance:
// tight where the transcripts hold hundreds of values (per-call sizes),
// loose where they hold a few (tails, compactions, a few dozen user
// prompts).
func figureTable() []figure {
	q := func(s func(f *Figures) *Sample, p float64) func(f *Figures) float64 {
		return func(f *Figures) float64 { return s(f).Quantile(p) }
	}
	mean := func(s func(f *Figures) *Sample) func(f *Figures) float64 {
		return func(f *Figures) float64 { return s(f).Mean() }
	}
	n := func(s func(f *Figures) *Sample) func(f *Figures) int {
		return func(f *Figures) int { return s(f).N() }
	}
	start := func(f *Figures) *Sample { return &f.StartContext }
	growth := func(f *Figures) *Sample { return &f.Growth }
	output := func(f *Figures) *Sample { return &f.Output }
	tools := func(f *Figures) *Sample { return &f.Tools }
	prompts := func(f *Figures) *Sample { return &f.CallsPerPrompt }
	at := func(f *Figures) *Sample { return &f.CompactAt }
	after := func(f *Figures) *Sample { return &f.AfterCompact }
	return []figure{
		{"start context, median", 0.15, q(start, 0.5), n(start)},
		{"growth per call, p10", 0.5, q(growth, 0.1), n(growth)},
		{"growth per call, median", 0.2, q(growth, 0.5), n(growth)},
		{"growth per call, p90", 0.25, q(growth, 0.9), n(growth)},
		{"growth per call, p99", 0.4, q(growth, 0.99), n(growth)},
		{"growth per call, mean", 0.2, mean(growth), n(growth)},
		{"output per call, median", 0.2, q(output, 0.5), n(output)},
		{"output per call, p90", 0.25, q(output, 0.9), n(output)},
		{"output per call, p99", 0.4, q(output, 0.99), n(output)},
		{"tools per call, mean", 0.15, mean(tools), n(tools)},
		{"calls per user prompt, median", 0.5, q(prompts, 0.5), n(prompts)},
		{"calls per user prompt, mean", 0.5, mean(prompts), n(prompts)},
		{"auto-compact at, median", 0.05, q(at, 0.5), n(at)},
		{"context after compaction, mean", 0.15, mean(after), n(after)},
	}
}

// Compare lines up the simulated figures against the real ones, each
// with its tolerance.
func Compare(real, simulated *Figures) []CalibrationRow {
	return CompareTargets(Measure(real), simulated)
}

// CompareTargets lines up the simulated figures against real targets
// (see [Targets]), each with its tolerance; a figure the targets do not
// hold, or hold measured on no value, is left out. The rows carry the
// number of real values: a figure measured on a few is a weak target.
func CompareTargets(real []Target, simulated *Figures) []CalibrationRow {
	out := make([]CalibrationRow, 0, len(real))
	for _, f := range figureTable() {
		i := slices.IndexFunc(real, func(t Target) bool { return t.Figure == f.name })
		if i < 0 || real[i].N == 0 {
			continue
		}
		t := real[i]
		r := CalibrationRow{Figure: f.name, Published: Published[f.name], Real: t.Value, Simulated: f.get(simulated),
			Tolerance: f.tol, N: t.N}
		d := r.Diff()
		r.OK = r.Real > 0 && d <= r.Tolerance && d >= -r.Tolerance
		out = append(out, r)
	}
	return out
}

// Measure measures every calibration figure of f.
func Measure(f *Figures) []Target {
	var out []Target
	for _, fig := range figureTable() {
		t := Target{Figure: fig.name, N: fig.n(f)}
		if t.N > 0 {
			t.Value = fig.get(f)
		}
		out = append(out, t)
	}
	return out
}
