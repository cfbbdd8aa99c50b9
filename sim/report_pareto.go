package sim

import (
	"fmt"
	"strings"
)

// writePareto writes the settings on the Pareto front of the report's
// two axes, each with the settings it is not significantly different
// from, then the settings off the front that none on it beats
// significantly.
func (rep *Report) writePareto(md *markdown, labels []string) {
	r := rep.Result
	ax := r.ParetoAxes()
	md.linef("## Pareto front: %s against %s", ax.X.short(), ax.Y.short())
	md.line("")
	md.linef("The settings no other setting beats on both %s and %s (choose the axes with -pareto), and the settings each is not significantly different from "+
		"(neither figure differs at 5%%, %s; more episodes could reorder them):", ax.X, ax.Y, paretoTests(ax, r.Paired()))
	md.line("")
	front, uncertain := r.ParetoFront(), r.ParetoUncertain()
	for i, on := range front {
		if on {
			md.line(frontLine(r, ax, labels, i))
		}
	}
	var off []string
	for i, u := range uncertain {
		if u {
			off = append(off, labels[i])
		}
	}
	if len(off) > 0 {
		md.line("")
		md.linef("Off the front but not significantly beaten by a setting on it: %s.", strings.Join(off, ", "))
	}
	md.line("")
	if !r.Paired() {
		md.line("The run was too large to keep every episode's figures for pairing; the settings share their episodes (common random numbers), " +
			"which makes tests of independent samples conservative: a difference they call significant is one, a difference they do not may still be.")
		md.line("")
	}
}

// paretoTests names the tests that tell two settings apart on the two
// axes.
func paretoTests(ax ParetoAxes, paired bool) string {
	if !paired {
		return "as independent samples: " + paretoTest(ax.X, paired) + ", " + paretoTest(ax.Y, paired)
	}
	return "paired by episode (every setting played the same episodes): " + paretoTest(ax.X, paired) + ", " + paretoTest(ax.Y, paired)
}

// paretoTest names the test that tells two settings apart on one axis.
func paretoTest(a ParetoAxis, paired bool) string {
	switch {
	case a.Failure && paired:
		return "McNemar's exact test for the failure rate"
	case a.Failure:
		return "the two-proportion z test for the failure rate"
	case paired:
		return "the paired t test for " + a.String()
	}
	return "Welch's t for " + a.String()
}

// frontLine is the line of setting i, on the front: its figures on both
// axes and the settings it is not significantly different from.
func frontLine(r *Result, ax ParetoAxes, labels []string, i int) string {
	a := r.Settings[i].Aggregate
	line := fmt.Sprintf("- %s: %s, %s", labels[i], paretoFigure(ax.X, a), paretoFigure(ax.Y, a))
	var same []string
	for j := range r.Settings {
		if j != i && !r.Distinct(i, j) {
			same = append(same, labels[j])
		}
	}
	if len(same) > 0 {
		line += "; not significantly different from " + strings.Join(same, ", ")
	}
	return line
}

// paretoFigure is a setting's figure on one axis: its failure rate, or
// the mean of the axis's metric per episode.
func paretoFigure(a ParetoAxis, agg *Aggregate) string {
	if a.Failure {
		return FormatRate(agg.Failures(), agg.Episodes) + " failures"
	}
	m := a.Metric
	unit := " " + m.String() + " per episode"
	if m.Unit() == "usd" {
		unit = " per episode"
	}
	return meanPM(agg, m, a.format) + unit
}
