package sim

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"

	"github.com/loopsim/loopsim/fakemodel"
)

// FitOptions configure [FitWorkload].
type FitOptions struct {
	// Base is the setting the fit simulates: its policy, its model, and
	// the workload whose parameters the logs cannot measure (fault rates,
	// what a stop-hook block adds) are kept as they are.
	Base Setting
	// Episodes is how many episodes each round simulates.
	Episodes int
	// Rounds is how many rounds of correction follow the first estimate.
	Rounds int
	// Seed is the root seed of every round.
	Seed uint64
	// Workers are the episodes played at once.
	Workers int
	// Population is how the fitted workload's sessions differ (see
	// [FitPopulation]); the zero Population fits one user, whose
	// sessions differ only by chance. The fit draws every other
	// parameter within a session, so the sessions pooled match the logs
	// pooled.
	Population fakemodel.Population
	// Spreads are the estimates Population came from, kept in the fit's
	// report.
	Spreads []Spread
}

// Fit is a workload fitted to real sessions, and how well a simulation
// of it reproduces them.
type Fit struct {
	// Setting is the base setting with the fitted workload.
	Setting Setting
	// Real are the figures of the real sessions; Simulated those of a
	// simulation of the fitted workload.
	Real, Simulated Figures
	// Distances compare each distribution, real against simulated.
	Distances []Distance
	// Fitted lists the workload parameters measured from the sessions;
	// Kept those taken from the base workload, with why.
	Fitted, Kept []string
	// Spreads are the estimates of the population's spreads, if fitted.
	Spreads []Spread
}

// Distance compares one distribution of the real sessions with the
// simulated one.
type Distance struct {
	// Name names the distribution ("output per call").
	Name string `json:"name"`
	// Real and Simulated count the values.
	Real      int `json:"n_real"`
	Simulated int `json:"n_simulated"`
	// KS is the two-sample Kolmogorov-Smirnov distance: the largest gap
	// between the two empirical distribution functions (0 to 1).
	KS float64 `json:"ks"`
	// Critical is the distance above which the two samples differ at the
	// 5% level (the asymptotic two-sample bound 1.358 sqrt((n+m)/(nm))).
	Critical float64 `json:"critical_5pct"`
	// RealQ and SimQ are the 10th, 50th, 90th and 99th percentiles.
	RealQ [4]float64 `json:"real_quantiles"`
	SimQ  [4]float64 `json:"simulated_quantiles"`
}

// Differs reports whether the distance exceeds the 5% critical value.
func (d Distance) Differs() bool { return d.KS > d.Critical }

// FitQuantiles are the probabilities of [Distance.RealQ] and SimQ.
var FitQuantiles = [4]float64{0.1, 0.5, 0.9, 0.99}

// fitDists are the distributions a fit compares, by name.
var fitDists = []struct {
	name   string
	sample func(f *Figures) *Sample
}{
	{"start context", func(f *Figures) *Sample { return &f.StartContext }},
	{"growth per call", func(f *Figures) *Sample { return &f.Growth }},
	{"output per call", func(f *Figures) *Sample { return &f.Output }},
	{"tools per call", func(f *Figures) *Sample { return &f.Tools }},
	{"calls per user prompt", func(f *Figures) *Sample { return &f.CallsPerPrompt }},
	{"context after compaction", func(f *Figures) *Sample { return &f.AfterCompact }},
}

// FitWorkload fits the workload of o.Base to the real figures: a first
// estimate from the figures (medians and the spread between median and
// 90th percentile for the log-normal sizes, means for the counts), then
// o.Rounds rounds that simulate the workload, measure it as the real
// sessions were measured, and correct each parameter by the ratio of
// real to simulated figure (what a tool result adds is seen only through
// the growth per call, the summary only through the context after a
// compaction). Parameters the figures do not measure are kept.
func FitWorkload(ctx context.Context, real *Figures, o FitOptions) (*Fit, error) {
	if real.Output.N() == 0 || real.Growth.N() == 0 {
		return nil, fmt.Errorf("fit: the sessions hold too few calls (%d outputs over 5 tokens, %d growths between calls)",
			real.Output.N(), real.Growth.N())
	}
	o.Episodes = max(o.Episodes, 100)
	fit := &Fit{Real: *real, Setting: o.Base, Spreads: o.Spreads}
	w := &fit.Setting.Workload
	w.Population = o.Population
	fit.estimate(w)
	for round := 0; ; round++ {
		sim, err := Calibrate(ctx, fit.Setting, o.Episodes, o.Seed, o.Workers)
		if err != nil {
			return nil, fmt.Errorf("fit round %d: %w", round, err)
		}
		fit.Simulated = sim
		if round == o.Rounds {
			break
		}
		fit.correct(w, &sim)
		if err := w.Validate(); err != nil {
			return nil, fmt.Errorf("fit round %d: %w", round, err)
		}
	}
	for _, d := range fitDists {
		fit.Distances = append(fit.Distances, distance(d.name, d.sample(real), d.sample(&fit.Simulated)))
	}
	return fit, nil
}

// spread is the log-normal sigma that puts the 90th percentile at q90
// for a median q50, within [lo, hi].
func spread(q50, q90, lo, hi float64) float64 {
	if q50 <= 0 || q90 <= q50 {
		return lo
	}
	return min(max(math.Log(q90/q50)/1.2816, lo), hi)
}

// meanOverMedian is the log of a sample's mean over its median, 0 when
// not positive.
func meanOverMedian(s *Sample) float64 {
	if s.N() == 0 || s.Quantile(0.5) <= 0 {
		return 0
	}
	return max(math.Log(s.Mean()/s.Quantile(0.5)), 0)
}

// momentSpread is the log-normal sigma whose mean over median is the
// sample's (e^(sigma^2/2)), within [lo, hi]: the calls per prompt have
// a heavy tail that a few dozen prompts' 90th percentile measures
// poorly, and the mean is what a session's cost follows.
func momentSpread(s *Sample, lo, hi float64) float64 {
	return min(max(math.Sqrt(2*meanOverMedian(s)), lo), hi)
}

// within is the log-normal sigma left within a session when the pooled
// sigma is total and the population's spread between sessions is
// between (the two add as variances), at least lo.
func within(total, between, lo float64) float64 {
	if between == 0 {
		return total
	}
	return max(math.Sqrt(max(total*total-between*between, 0)), lo)
}

// estimate sets the first estimate of every parameter the figures
// measure.
func (fit *Fit) estimate(w *fakemodel.Workload) {
	r := &fit.Real
	if r.StartContext.N() > 0 {
		lo, hi := r.StartContext.Quantile(0.1), r.StartContext.Quantile(0.9)
		if hi-lo < 0.1*lo {
			lo, hi = 0.95*r.StartContext.Quantile(0.5), 1.05*r.StartContext.Quantile(0.5)
		}
		if w.Population.StartContext > 0 {
			// the spread between sessions is the population's
			lo, hi = 0.95*r.StartContext.Quantile(0.5), 1.05*r.StartContext.Quantile(0.5)
		}
		w.StartContext = fakemodel.Uniform{Min: int(lo), Max: int(hi)}
		fit.Fitted = append(fit.Fitted, "start_context (10th to 90th percentile of the first call's context; with a population spread, 5% either side of the median)")
	} else {
		fit.Kept = append(fit.Kept, "start_context (no session starts with this model)")
	}
	w.Output.Median = r.Output.Quantile(0.5)
	w.Output.Sigma = within(spread(r.Output.Quantile(0.5), r.Output.Quantile(0.9), 0.1, 3), w.Population.Output, 0.1)
	fit.Fitted = append(fit.Fitted, "output (median; sigma from the 90th percentile)")

	var tooling, tools float64
	for _, v := range r.Tools.Values {
		if v > 0 {
			tooling++
			tools += float64(v)
		}
	}
	if tooling > 0 {
		w.Tools.Mean = max(tools/tooling, float64(w.Tools.Min))
		if sd := w.Population.Tools; sd > 0 {
			// a session scales the calls beyond the first by a factor of mean e^(sd^2/2)
			w.Tools.Mean = float64(w.Tools.Min) + (w.Tools.Mean-float64(w.Tools.Min))/math.Exp(sd*sd/2)
		}
		fit.Fitted = append(fit.Fitted, "tools.mean (tool calls per tool-calling call)")
	} else {
		fit.Kept = append(fit.Kept, "tools (no call in the logs called a tool)")
	}
	perTool := max(r.Growth.Quantile(0.5)-r.Output.Quantile(0.5), 20) / max(w.Tools.Mean, 1)
	w.ToolResult.Median = perTool
	w.ToolResult.Sigma = within(spread(r.Growth.Quantile(0.5), r.Growth.Quantile(0.9), 0.3, 4), w.Population.ToolResult, 0.3)
	fit.Fitted = append(fit.Fitted, "tool_result (median and sigma, corrected until the growth per call matches: its median, and its p90 and p99 over the median)")

	if r.CallsPerPrompt.N() > 0 {
		w.Replies.Median = max(r.CallsPerPrompt.Quantile(0.5), 1)
		w.Replies.Sigma = within(momentSpread(&r.CallsPerPrompt, 0.3, 3), w.Population.Replies, 0.3)
		fit.Fitted = append(fit.Fitted, "replies (calls per user prompt: median, and sigma from the mean over the median, corrected until both match)")
	} else {
		fit.Kept = append(fit.Kept, "replies (no user prompt in the logs)")
	}
	if r.AfterCompact.N() > 0 {
		w.Summary.Median = 0.85 * r.AfterCompact.Mean()
		fit.Fitted = append(fit.Fitted, "summary.median (corrected until the context after a compaction matches)")
	} else {
		fit.Kept = append(fit.Kept, "summary (no compaction followed by a call in the logs)")
	}
	fit.Kept = append(fit.Kept, "faults (the logs do not measure fault rates: assumed)",
		"after_block (the logs do not show stop-hook blocks: assumed)",
		"compaction_rework (the logs do not measure it: assumed, see fakemodel.DefaultCompactionRework)")
}

// correct scales each fitted parameter by how far its figure is off.
func (fit *Fit) correct(w *fakemodel.Workload, sim *Figures) {
	r := &fit.Real
	ratio := func(real, simulated float64) float64 {
		if real <= 0 || simulated <= 0 {
			return 1
		}
		return min(max(real/simulated, 0.25), 4)
	}
	logRatio := func(s func(f *Figures) *Sample) float64 {
		re := math.Log(max(s(r).Quantile(0.9), 1) / max(s(r).Quantile(0.5), 1))
		si := math.Log(max(s(sim).Quantile(0.9), 1) / max(s(sim).Quantile(0.5), 1))
		return ratio(re, si)
	}
	if r.StartContext.N() > 0 {
		start := ratio(r.StartContext.Quantile(0.5), sim.StartContext.Quantile(0.5))
		w.StartContext = fakemodel.Uniform{Min: int(float64(w.StartContext.Min) * start), Max: int(float64(w.StartContext.Max) * start)}
	}
	w.Output.Median *= ratio(r.Output.Quantile(0.5), sim.Output.Quantile(0.5))
	w.Output.Sigma = min(max(w.Output.Sigma*logRatio(func(f *Figures) *Sample { return &f.Output }), 0.1), 3)
	w.ToolResult.Median *= ratio(r.Growth.Quantile(0.5), sim.Growth.Quantile(0.5))
	// the growth's tail (what a context grows by at its worst) weighs as
	// much as its body: the spread follows p90 and p99 over the median
	growth := func(f *Figures) *Sample { return &f.Growth }
	tail := func(f *Figures) float64 {
		return math.Log(max(f.Growth.Quantile(0.99), 1) / max(f.Growth.Quantile(0.5), 1))
	}
	w.ToolResult.Sigma = min(max(w.ToolResult.Sigma*math.Sqrt(logRatio(growth)*ratio(tail(r), tail(sim))), 0.3), 4)
	if r.CallsPerPrompt.N() > 0 {
		w.Replies.Median = max(w.Replies.Median*ratio(r.CallsPerPrompt.Quantile(0.5), sim.CallsPerPrompt.Quantile(0.5)), 1)
		// a log-normal's mean over its median is e^(sigma^2/2): scale the
		// session's total variance (within and between) by the ratio
		re, si := meanOverMedian(&r.CallsPerPrompt), meanOverMedian(&sim.CallsPerPrompt)
		if re > 0 && si > 0 {
			b := w.Population.Replies
			total := math.Sqrt((w.Replies.Sigma*w.Replies.Sigma + b*b) * min(max(re/si, 0.25), 4))
			w.Replies.Sigma = min(within(total, b, 0.3), 3)
		}
	}
	if r.AfterCompact.N() > 0 && sim.AfterCompact.N() > 0 {
		w.Summary.Median *= ratio(r.AfterCompact.Mean(), sim.AfterCompact.Mean())
	}
	w.Output.Median, w.ToolResult.Median, w.Replies.Median = round3(w.Output.Median), round3(w.ToolResult.Median), round3(w.Replies.Median)
	w.Summary.Median = round3(w.Summary.Median)
	w.Output.Sigma, w.ToolResult.Sigma, w.Replies.Sigma = round3(w.Output.Sigma), round3(w.ToolResult.Sigma), round3(w.Replies.Sigma)
}

// round3 rounds x to three significant digits, so a workload file reads
// as the estimate it is.
func round3(x float64) float64 {
	if x == 0 {
		return 0
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// distance compares two samples.
func distance(name string, real, simulated *Sample) Distance {
	d := Distance{Name: name, Real: real.N(), Simulated: simulated.N()}
	if d.Real == 0 || d.Simulated == 0 {
		return d
	}
	x, y := real.Sorted(), simulated.Sorted()
	d.KS = stat.KolmogorovSmirnov(x, nil, y, nil)
	n, m := float64(d.Real), float64(d.Simulated)
	d.Critical = 1.358 * math.Sqrt((n+m)/(n*m))
	for i, p := range FitQuantiles {
		d.RealQ[i] = stat.Quantile(p, stat.Empirical, x, nil)
		d.SimQ[i] = stat.Quantile(p, stat.Empirical, y, nil)
	}
	return d
}
