package sim

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/loopsim/loopsim/loop"
)

// Figure is a plot in a report: its PNG file and what it shows.
type Figure struct {
	File    string `json:"file"`
	Caption string `json:"caption"`
}

// Report is what a simulation's summary shows.
type Report struct {
	// Command is the command line that reproduces the simulation.
	Command string
	// Result is the simulation.
	Result *Result
	// Calibration compares the first setting with the real transcripts;
	// empty when not measured, CalibrationNote then says why.
	Calibration     []CalibrationRow
	CalibrationNote string
	// Figures are the plots, in the order shown.
	Figures []Figure
}

// WriteMarkdown writes the summary as Markdown. It holds nothing that
// varies between two runs of the same simulation (no times, no paths
// outside the output folder), so it can be compared as a whole.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	md := &markdown{w: bw}
	labels := rep.Result.Labels()
	rep.writeIntro(md)
	rep.writeOutcomes(md, labels)
	rep.writeTokens(md, labels)
	rep.writeRecovery(md, labels)
	rep.writeTerminals(md, labels)
	if len(rep.Result.Settings) > 1 {
		rep.writePareto(md, labels)
		rep.writePolicies(md, labels)
	}
	rep.writeAssumptions(md)
	rep.writeChecks(md, labels)
	rep.writeCalibration(md, labels)
	if len(rep.Figures) > 0 {
		rep.writePlots(md)
	}
	return bw.Flush()
}

// writeIntro writes the title, the command, the run's parameters and how
// to read the figures.
func (rep *Report) writeIntro(md *markdown) {
	r := rep.Result
	first := r.Settings[0].Setting
	md.line("# loopsim simulation")
	md.line("")
	md.linef("    %s", rep.Command)
	md.line("")
	if r.Partial {
		done := 0
		for _, s := range r.Settings {
			done += s.Aggregate.Episodes
		}
		md.linef("**Partial: interrupted** after %s of %s episodes; every figure below counts only the episodes that finished.",
			thousands(int64(done)), thousands(int64(r.Episodes*len(r.Settings))))
		md.line("")
	}
	checked := "not checked (-check=false)"
	if r.Checked {
		checked = "checked on every episode"
	}
	md.linef("%s episodes per setting, %d settings, root seed %d. Model %s: window %s tokens, max output %s. "+
		"Prices per million tokens: input $%g, cache write $%g, cache read $%g, output $%g. Invariants %s.",
		thousands(int64(r.Episodes)), len(r.Settings), r.Seed, first.Model.Name, thousands(int64(first.Model.ContextWindow)),
		thousands(int64(first.Model.MaxOutputTokens)), r.Prices.Input, r.Prices.CacheWrite, r.Prices.CacheRead, r.Prices.Output, checked)
	md.line("")
	if first.Workload.Swarm {
		md.line("Swarm mode: each episode draws its own fault probabilities around the configured ones.")
		md.line("")
	}
	md.line("A failure is an episode that halted or ended in " + joinTerminals(FailureTerminals) +
		", or that ended completed after an API error (the seed's path: the error is shown, the stop-failure hooks run, the loop returns completed);" +
		" the other terminals end where the user, a hook or the turn cap said. The completed column leaves out completions after an API error.")
	md.line("")
	md.linef("Each figure with ± is an estimate from the n = %s episodes of its setting, ± half the width of its 95%% confidence interval "+
		"(Wilson's for rates, Student's t for means); a rate whose interval is far from symmetric shows the interval instead, [low, high].", thousands(int64(r.Episodes)))
	md.line("")
}

// writeOutcomes writes the table of completions, failures and halts.
func (rep *Report) writeOutcomes(md *markdown, labels []string) {
	r := rep.Result
	md.line("## Outcomes")
	md.line("")
	md.table([]string{"setting", "completed", "failed", "halted", "most frequent failures"}, len(r.Settings), func(i int) []string {
		a := r.Settings[i].Aggregate
		return []string{labels[i], FormatRate(a.Completions(), a.Episodes), FormatRate(a.Failures(), a.Episodes),
			thousands(int64(a.Halted)), topFailures(a, 3)}
	})
}

// writeTokens writes the table of turns, tokens and cost per episode.
func (rep *Report) writeTokens(md *markdown, labels []string) {
	r := rep.Result
	md.line("## Tokens and cost per episode")
	md.line("")
	md.line("Tokens are input (cached or not) plus output of the successful requests; wasted tokens are the input of failed requests and the output of replies the loop dropped.")
	md.line("")
	md.table([]string{"setting", "turns (mean)", "tokens (mean)", "p50", "p90", "p99", "wasted (mean)", "peak context p99", "cost (mean)", "cost p90"},
		len(r.Settings), func(i int) []string {
			a := r.Settings[i].Aggregate
			return []string{labels[i], meanPM(a, Turns, decimal), meanPM(a, Tokens, FormatTokens), FormatTokens(float64(a.Quantile(Tokens, 0.5))),
				FormatTokens(float64(a.Quantile(Tokens, 0.9))), FormatTokens(float64(a.Quantile(Tokens, 0.99))), meanPM(a, WastedTokens, FormatTokens),
				FormatTokens(float64(a.Quantile(PeakContext, 0.99))), meanPM(a, CostMicroUSD, usd), usd(float64(a.Quantile(CostMicroUSD, 0.9)))}
		})
}

// writeRecovery writes the table of compactions, recoveries and retries
// per 100 episodes.
func (rep *Report) writeRecovery(md *markdown, labels []string) {
	r := rep.Result
	md.line("## Context management and recovery, per 100 episodes")
	md.line("")
	per100 := []Metric{AutoCompactions, ReactiveCompactions, CompactionFailures, Collapses, Snips, Microcompactions,
		Recoveries, StreamCutsKept, Escalations, StopHookBlocks, Retries, Fallbacks}
	head := []string{"setting"}
	for _, m := range per100 {
		head = append(head, m.String())
	}
	head = append(head, "retry time (mean)")
	md.table(head, len(r.Settings), func(i int) []string {
		a := r.Settings[i].Aggregate
		row := []string{labels[i]}
		for _, m := range per100 {
			row = append(row, decimal(100*a.Mean(m)))
		}
		return append(row, fmt.Sprintf("%.1f s", a.Mean(RetryTimeMS)/1000))
	})
}

// writeTerminals writes the table of terminals, a column for each that
// some setting reached.
func (rep *Report) writeTerminals(md *markdown, labels []string) {
	r := rep.Result
	md.line("## Terminals")
	md.line("")
	var seen []loop.Terminal
	for _, t := range loop.Terminals {
		for _, s := range r.Settings {
			if s.Aggregate.Terminals[t] > 0 {
				seen = append(seen, t)
				break
			}
		}
	}
	head := []string{"setting"}
	for _, t := range seen {
		head = append(head, string(t))
	}
	md.table(append(head, "halted"), len(r.Settings), func(i int) []string {
		a := r.Settings[i].Aggregate
		row := []string{labels[i]}
		for _, t := range seen {
			row = append(row, thousands(int64(a.Terminals[t])))
		}
		return append(row, thousands(int64(a.Halted)))
	})
}

// writeCalibration writes the comparison of the first setting with the
// real transcripts, or the note saying why there is none.
func (rep *Report) writeCalibration(md *markdown, labels []string) {
	md.line("## Calibration against the real transcripts")
	md.line("")
	if len(rep.Calibration) == 0 {
		md.line(rep.CalibrationNote)
		md.line("")
		return
	}
	md.linef("The first setting (%s) measured as the transcripts are: per successful main request, one user prompt per episode. %s",
		labels[0], rep.CalibrationNote)
	md.line("")
	heldOut := slices.ContainsFunc(rep.Calibration, func(c CalibrationRow) bool { return c.HeldOut != nil })
	head := []string{"figure", "README", "real (measured)", "simulated", "difference", "tolerance", "within"}
	if heldOut {
		head = append(head, "held out: mean abs. error, in band")
	}
	md.table(head, len(rep.Calibration), func(i int) []string {
		c := rep.Calibration[i]
		ok := "yes"
		if !c.OK {
			ok = "**no**"
		}
		row := []string{c.Figure, c.Published, calFigure(c.Real), calFigure(c.Simulated), fmt.Sprintf("%+.1f%%", 100*c.Diff()),
			fmt.Sprintf("±%.0f%%", 100*c.Tolerance), ok}
		if heldOut {
			h := ""
			if c.HeldOut != nil {
				h = fmt.Sprintf("%.0f%%, %d of %d", 100*c.HeldOut.MeanAbsError, c.HeldOut.Inside, c.HeldOut.Sources)
			}
			row = append(row, h)
		}
		return row
	})
}

// writePlots writes each figure with its caption.
func (rep *Report) writePlots(md *markdown) {
	md.line("## Plots")
	md.line("")
	for _, f := range rep.Figures {
		md.linef("![%s](%s)", f.Caption, f.File)
		md.line("")
		md.line(f.Caption)
		md.line("")
	}
}

// writeChecks writes the safety and liveness sections.
func (rep *Report) writeChecks(md *markdown, labels []string) {
	r := rep.Result
	md.line("## Safety: invariants")
	md.line("")
	if !r.Checked {
		md.line("Not checked (run with -check to check every episode against the invariants of docs/spec.md §5).")
		md.line("")
	} else {
		any := false
		for i, s := range r.Settings {
			a := s.Aggregate
			for _, inv := range a.InvariantNames() {
				if inv == LivenessInvariant {
					continue
				}
				any = true
				md.linef("- %s: **%s** broken %s times%s", labels[i], inv, thousands(int64(a.Violations[inv])), explainedNote(a, inv))
			}
		}
		if !any {
			md.line("No episode broke a safety invariant.")
		}
		md.line("")
		rep.writeExamples(md, labels, false)
	}

	md.line("## Liveness: termination")
	md.line("")
	md.table([]string{"setting", "halted (iteration limit)", "termination violations", "of them known findings", "most iterations"}, len(r.Settings), func(i int) []string {
		a := r.Settings[i].Aggregate
		v, known := "not checked", "not checked"
		if r.Checked {
			v = thousands(int64(a.Violations[LivenessInvariant]))
			known = thousands(int64(a.ExplainedOf(LivenessInvariant)))
		}
		return []string{labels[i], thousands(int64(a.Halted)), v, known, thousands(a.Max[Iterations])}
	})
	if r.Checked {
		md.line("A known finding is a way a policy breaks an invariant on purpose, named with the option that removes it (docs/spec.md §5, `properties.KnownFindings`).")
		md.line("")
	}
	if r.Checked {
		rep.writeExamples(md, labels, true)
	}
}

// writeExamples lists the first violating episodes of each setting, with
// the command that replays each.
func (rep *Report) writeExamples(md *markdown, labels []string, liveness bool) {
	for i, s := range rep.Result.Settings {
		shown := 0
		for _, ep := range s.Aggregate.Examples {
			for _, v := range ep.Violations {
				if v.Liveness() != liveness || shown >= 3 {
					continue
				}
				if shown == 0 {
					md.linef("First episodes of %s:", labels[i])
					md.line("")
				}
				shown++
				known := ""
				if v.Finding != "" {
					known = fmt.Sprintf(" (known finding `%s`)", v.Finding)
				}
				md.linef("- episode %d (%s): %s%s: %s", ep.Index, terminalOf(&ep), v.Invariant, known, v.Detail)
				md.linef("  replay: `go run ./cmd/simulate %s -replay %#x`", s.Setting.ReplayFlags(), ep.Seed)
			}
		}
		if shown > 0 {
			md.line("")
		}
	}
}

// FormatRate writes k of n as a percentage with the half-width of its
// Wilson interval, "1.6% ± 0.6", or with the interval itself, "0.0%
// [0.0, 6.0]", where the interval is far from symmetric (near 0 or 100%).
func FormatRate(k, n int) string {
	ci := Wilson(k, n, Confidence)
	p := ratio(k, n)
	below, above := p-ci.Lo, ci.Hi-p
	if min(below, above) < 0.75*max(below, above) {
		return fmt.Sprintf("%s [%s, %s]", percent(p), strconv.FormatFloat(100*ci.Lo, 'f', 1, 64), strconv.FormatFloat(100*ci.Hi, 'f', 1, 64))
	}
	return fmt.Sprintf("%s ± %s", percent(p), strconv.FormatFloat(100*(ci.Hi-ci.Lo)/2, 'f', 1, 64))
}

// meanPM writes metric m's mean with the half-width of its t interval,
// both in format.
func meanPM(a *Aggregate, m Metric, format func(float64) string) string {
	ci := a.MeanInterval(m)
	return format(a.Mean(m)) + " ± " + format((ci.Hi-ci.Lo)/2)
}

func terminalOf(ep *Episode) string {
	if ep.Halted {
		return "halted"
	}
	return string(ep.Terminal)
}

// topFailures names the n most frequent failure terminals with counts.
func topFailures(a *Aggregate, n int) string {
	type tc struct {
		t string
		n int
	}
	var all []tc
	for _, t := range FailureTerminals {
		if c := a.Terminals[t]; c > 0 {
			all = append(all, tc{string(t), c})
		}
	}
	if a.CompletedAfterAPIError > 0 {
		all = append(all, tc{"completed after an API error", a.CompletedAfterAPIError})
	}
	if a.Halted > 0 {
		all = append(all, tc{"halted", a.Halted})
	}
	// stable: by count, then by the fixed order above
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && all[j].n > all[j-1].n; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	var parts []string
	for _, x := range all[:min(n, len(all))] {
		parts = append(parts, fmt.Sprintf("%s %s", x.t, thousands(int64(x.n))))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func joinTerminals(ts []loop.Terminal) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = string(t)
	}
	return strings.Join(parts, ", ")
}

func calFigure(x float64) string {
	if x < 100 {
		return fmt.Sprintf("%.2f", x)
	}
	return thousands(int64(x + 0.5))
}

// markdown writes lines and tables, keeping the first write error.
type markdown struct {
	w *bufio.Writer
}

func (m *markdown) line(s string) {
	m.w.WriteString(s)
	m.w.WriteByte('\n')
}

func (m *markdown) linef(format string, args ...any) { m.line(fmt.Sprintf(format, args...)) }

// table writes a table of n rows.
func (m *markdown) table(head []string, n int, row func(i int) []string) {
	m.line("| " + strings.Join(head, " | ") + " |")
	sep := make([]string, len(head))
	for i := range sep {
		sep[i] = "---"
		if i > 0 {
			sep[i] = "---:"
		}
	}
	m.line("|" + strings.Join(sep, "|") + "|")
	for i := range n {
		cells := row(i)
		for j, c := range cells {
			cells[j] = strings.ReplaceAll(c, "|", `\|`)
		}
		m.line("| " + strings.Join(cells, " | ") + " |")
	}
	m.line("")
}
