package reports

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/loopsim/loopsim/sim"
)

// maxTraceDiffs caps the diffs shown of scenarios whose trace alone
// changed.
const maxTraceDiffs = 3

// Figure is a plot in a comparison's report.
type Figure struct {
	File    string `json:"file"`
	Caption string `json:"caption"`
}

// WriteMarkdown writes the comparison as Markdown for a pull request.
// It holds nothing that varies between two runs on the same records (no
// times), so a golden file can pin it. figures, if any, are listed at
// the end.
func (c *Comparison) WriteMarkdown(w io.Writer, figures []Figure) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format+"\n", args...) }
	c.writeRecords(p)
	for i := range c.Settings {
		c.Settings[i].writeMarkdown(bw, c)
	}
	p("## Behaviour: the scenario library")
	p("")
	p("Base at %s, candidate at %s.", revision(c.Base.Build), revision(c.Candidate.Build))
	p("")
	switch {
	case c.BehaviourNote != "":
		p("%s", c.BehaviourNote)
	case len(c.Behaviour) == 0:
		p("Every scenario has the same verdict, terminal, transitions, requests and trace.")
	default:
		c.writeBehaviour(p)
	}
	p("")
	if len(figures) > 0 {
		p("## Plots")
		p("")
		for _, f := range figures {
			p("![%s](%s)", f.Caption, f.File)
			p("")
			p("%s", f.Caption)
			p("")
		}
	}
	return bw.Flush()
}

// printf writes one line of a report.
type printf func(format string, args ...any)

// writeRecords writes the title, the two records compared and how to
// read the deltas.
func (c *Comparison) writeRecords(p printf) {
	p("# loopsim comparison")
	p("")
	p("| | record | loopsim | Go | episodes per setting | root seed |")
	p("|---|---|---|---|---:|---:|")
	for _, s := range []struct {
		name string
		side Side
	}{{"base", c.Base}, {"candidate", c.Candidate}} {
		p("| %s | `%s` | %s | %s | %s | %d |", s.name, s.side.File, revision(s.side.Build), s.side.Build.GoVersion,
			thousands(s.side.Episodes), s.side.Seed)
	}
	p("")
	p("Each delta is candidate minus base, with its 95%% confidence interval. Rates: Wilson intervals, the difference by Newcombe's method; " +
		"per-episode metrics: means with t intervals. The p-values are Holm-corrected across the metrics of each setting; " +
		"`~` means no significant difference at α = " + strconv.FormatFloat(c.Alpha, 'g', -1, 64) + ".")
	p("")
}

// writeBehaviour lists the scenarios that behave differently. Changes
// of what a scenario observes come first, each with its diff; changes of
// the trace alone (an event added everywhere) show a few diffs and then
// the names.
func (c *Comparison) writeBehaviour(p printf) {
	var observed, traceOnly []ScenarioChange
	for _, ch := range c.Behaviour {
		if len(ch.What) == 1 && ch.What[0] == "trace" {
			traceOnly = append(traceOnly, ch)
		} else {
			observed = append(observed, ch)
		}
	}
	verb := "scenarios behave"
	if len(c.Behaviour) == 1 {
		verb = "scenario behaves"
	}
	p("%d %s differently: %d in what they observe (verdict, terminal, transitions, requests, violations; added or removed), %d in the trace alone.",
		len(c.Behaviour), verb, len(observed), len(traceOnly))
	p("")
	shown := traceOnly[:min(len(traceOnly), maxTraceDiffs)]
	for _, ch := range append(observed, shown...) {
		p("- **%s** (%s): %s", ch.Name, verdictChange(ch), strings.Join(ch.What, ", "))
		if ch.Diff != "" {
			p("")
			p("  ```diff")
			for _, l := range strings.Split(strings.TrimSuffix(ch.Diff, "\n"), "\n") {
				p("  %s", l)
			}
			p("  ```")
		}
	}
	if rest := traceOnly[len(shown):]; len(rest) > 0 {
		names := make([]string, len(rest))
		for i, ch := range rest {
			names[i] = ch.Name
		}
		p("- the trace alone also changed in: %s", strings.Join(names, ", "))
	}
}

func verdictChange(ch ScenarioChange) string {
	b, c := ch.Base, ch.Candidate
	if b == "" {
		b = "absent"
	}
	if c == "" {
		c = "absent"
	}
	if b == c {
		return b
	}
	return b + " -> " + c
}

func revision(b Build) string {
	name := b.Name()
	if b.Revision != "" {
		return "`" + name + "`"
	}
	return name
}

func (sc *SettingComparison) writeMarkdown(w *bufio.Writer, c *Comparison) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("## %s", sc.Label)
	p("")
	if len(sc.Changes) == 0 {
		p("Same policy in both.")
	} else {
		p("Policy changes: %s.", strings.Join(backticked(sc.Changes), ", "))
	}
	if len(sc.Differences) > 0 {
		p("")
		p("**Compared with -force although they differ in more than the policy:** %s.", strings.Join(backticked(sc.Differences), ", "))
	}
	p("")
	if sc.Paired {
		p("Paired by episode seed: both played the same %s episodes (Wilcoxon signed-rank for per-episode metrics, McNemar's exact test for rates).", thousands(sc.N1))
	} else {
		p("Unpaired: the records played different episodes, %s against %s (Mann-Whitney U for per-episode metrics, the two-proportion z test for rates).",
			thousands(sc.N1), thousands(sc.N2))
	}
	p("")
	dagger := false
	p("| metric | base | candidate | delta | 95%% CI | p (Holm) | effect | verdict |")
	p("|---|---:|---:|---:|---:|---:|---:|---|")
	for i := range sc.Rows {
		r := &sc.Rows[i]
		verdict := string(r.Verdict)
		if r.Verdict != Same {
			verdict = "**" + verdict + "**"
		}
		if r.Disagree {
			verdict += " †"
			dagger = true
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s |", rowName(r), FormatValue(r, r.Base, r.BaseCI), FormatValue(r, r.Candidate, r.CandidateCI),
			FormatDelta(r, r.Delta), formatDeltaCI(r), formatP(r.PHolm), formatEffect(r), verdict)
	}
	p("")
	if dagger {
		p("† The rank test finds a shift but the interval of the difference of means holds zero: the typical episode moved, while a few large episodes dominate the mean. The p-value and the verdict are the rank test's; the delta and its interval are the means'.")
		p("")
	}
	var sig []string
	for i := range sc.Rows {
		if r := &sc.Rows[i]; r.Verdict != Same {
			sig = append(sig, fmt.Sprintf("%s %s (%s)", rowName(r), FormatDelta(r, r.Delta), r.Verdict))
		}
	}
	if len(sig) == 0 {
		p("No significant difference.")
	} else {
		p("Significant: %s.", strings.Join(sig, "; "))
	}
	p("")
	switch {
	case !c.Candidate.Checked:
		p("Invariants were not checked in the candidate.")
	case sc.NewViolating == 0:
		p("No invariant violation new in the candidate.")
	default:
		what := "candidate episodes break"
		if sc.NewViolating == 1 {
			what = "candidate episode breaks"
		}
		p("**%s %s an invariant the base did not** (replay at the candidate's revision %s):", thousands(sc.NewViolating), what, revision(c.Candidate.Build))
		p("")
		for _, v := range sc.NewViolations {
			p("- episode %d (%s): %s: `%s`", v.Episode, v.End, v.Invariants, v.Replay)
		}
	}
	p("")
}

func backticked(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "`" + s + "`"
	}
	return out
}

// rowName names a row for a person.
func rowName(r *MetricRow) string {
	switch {
	case r.Metric == "failure_rate":
		return "failure rate"
	case r.Kind == KindRate:
		return "share " + r.Metric
	}
	for _, m := range sim.Metrics() {
		if m.Name() == r.Metric {
			return m.String() + " (mean)"
		}
	}
	return strings.ReplaceAll(r.Metric, "_", " ") + " (mean)"
}

// FormatValue writes a row's value with its interval: "1.40% [1.1, 1.8]"
// for a rate, "2.02M ± 0.05M" for a mean.
func FormatValue(r *MetricRow, v float64, ci sim.Interval) string {
	if r.Kind == KindRate {
		return fmt.Sprintf("%s [%s, %s]", pct(v), trimPct(ci.Lo), trimPct(ci.Hi))
	}
	return number(r, v) + " ± " + number(r, (ci.Hi-ci.Lo)/2)
}

// FormatDelta writes a delta: percentage points for a rate, the
// absolute and relative change for a mean.
func FormatDelta(r *MetricRow, d float64) string {
	if r.Kind == KindRate {
		return fmt.Sprintf("%+.2fpp", 100*d)
	}
	rel, _ := r.Relative()
	if r.Base == 0 {
		return signed(number(r, d), d)
	}
	return fmt.Sprintf("%s (%+.1f%%)", signed(number(r, d), d), 100*rel)
}

func formatDeltaCI(r *MetricRow) string {
	if r.Kind == KindRate {
		return fmt.Sprintf("[%+.2f, %+.2f]pp", 100*r.DeltaCI.Lo, 100*r.DeltaCI.Hi)
	}
	if r.Base == 0 {
		return fmt.Sprintf("[%s, %s]", signed(number(r, r.DeltaCI.Lo), r.DeltaCI.Lo), signed(number(r, r.DeltaCI.Hi), r.DeltaCI.Hi))
	}
	_, ci := r.Relative()
	return fmt.Sprintf("[%+.1f%%, %+.1f%%]", 100*ci.Lo, 100*ci.Hi)
}

func signed(s string, v float64) string {
	if v >= 0 && !strings.HasPrefix(s, "-") {
		return "+" + s
	}
	return s
}

func formatP(p float64) string {
	switch {
	case p < 0.0001:
		return "<0.0001"
	case p < 0.01:
		return strconv.FormatFloat(p, 'f', 4, 64)
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

func formatEffect(r *MetricRow) string {
	if r.Kind == KindRate {
		return fmt.Sprintf("h=%+.2f", r.Effect)
	}
	return fmt.Sprintf("r=%+.2f", r.Effect)
}

// number writes a mean in its unit.
func number(r *MetricRow, v float64) string {
	switch r.Unit {
	case "usd":
		sign := ""
		if v < 0 {
			sign, v = "-", -v
		}
		if v < 0.1 {
			return fmt.Sprintf("%s$%.4f", sign, v)
		}
		return fmt.Sprintf("%s$%.3f", sign, v)
	case "tokens":
		return sim.FormatTokens(v)
	case "ms":
		return fmt.Sprintf("%.2f s", v/1000)
	}
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func pct(f float64) string { return strconv.FormatFloat(100*f, 'f', 2, 64) + "%" }

func trimPct(f float64) string { return strconv.FormatFloat(100*f, 'f', 2, 64) }

func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// WriteJSON writes the comparison as one JSON document, with the
// regressions the rules found.
func (c *Comparison) WriteJSON(w io.Writer, regressions []Regression) error {
	doc := struct {
		*Comparison
		Regressions []Regression `json:"regressions"`
	}{c, regressions}
	if doc.Regressions == nil {
		doc.Regressions = []Regression{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("comparison json: %w", err)
	}
	return nil
}
