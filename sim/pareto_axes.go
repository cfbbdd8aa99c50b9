package sim

import (
	"fmt"
	"strings"
)

// ParetoAxis is a figure the Pareto view minimises: a metric's mean per
// episode, or, with Failure set, the failure rate.
type ParetoAxis struct {
	Metric  Metric
	Failure bool
}

// FailureAxis is the failure rate as a Pareto axis.
var FailureAxis = ParetoAxis{Failure: true}

// Name is the axis as -pareto names it: "failure_rate" or the metric's
// name ("cost_usd").
func (a ParetoAxis) Name() string {
	if a.Failure {
		return "failure_rate"
	}
	return a.Metric.Name()
}

// String describes the axis for a person.
func (a ParetoAxis) String() string {
	switch {
	case a.Failure:
		return "failure rate"
	case a.Metric == CostMicroUSD:
		return "mean cost per episode"
	}
	return "mean " + a.Metric.String() + " per episode"
}

// short is the axis in a few words, for titles.
func (a ParetoAxis) short() string {
	switch {
	case a.Failure:
		return "failures"
	case a.Metric == CostMicroUSD:
		return "cost"
	case a.Metric == Tokens:
		return "tokens"
	}
	return a.Metric.String()
}

// value is a setting's figure on the axis and its 95% interval: the
// failure rate (Wilson) or the metric's mean (t).
func (a ParetoAxis) value(agg *Aggregate) (float64, Interval) {
	if a.Failure {
		return agg.FailureRate(), agg.FailureInterval()
	}
	return agg.Mean(a.Metric), agg.MeanInterval(a.Metric)
}

// format writes a figure of the axis for a person.
func (a ParetoAxis) format(v float64) string {
	switch {
	case a.Failure:
		return percent(v)
	case a.Metric.Unit() == "tokens":
		return FormatTokens(v)
	case a.Metric.Unit() == "usd":
		return usd(v)
	}
	return decimal(v)
}

// ParetoAxes are the two figures the Pareto view minimises.
type ParetoAxes struct{ X, Y ParetoAxis }

// DefaultParetoAxes: mean cost per episode against the failure rate.
var DefaultParetoAxes = ParetoAxes{X: ParetoAxis{Metric: CostMicroUSD}, Y: FailureAxis}

// String is the axes as -pareto takes them: "cost_usd,failure_rate".
func (p ParetoAxes) String() string { return p.X.Name() + "," + p.Y.Name() }

// ParseParetoAxes reads "x,y", each failure_rate or a metric's name
// (tokens, cost_usd, wasted_tokens, ...; see [Metric.Name]).
func ParseParetoAxes(s string) (ParetoAxes, error) {
	x, y, ok := strings.Cut(s, ",")
	if !ok {
		return ParetoAxes{}, fmt.Errorf("pareto axes %q: want x,y (e.g. %s)", s, DefaultParetoAxes)
	}
	var p ParetoAxes
	var err error
	if p.X, err = parseParetoAxis(strings.TrimSpace(x)); err != nil {
		return ParetoAxes{}, fmt.Errorf("pareto axes %q: %w", s, err)
	}
	if p.Y, err = parseParetoAxis(strings.TrimSpace(y)); err != nil {
		return ParetoAxes{}, fmt.Errorf("pareto axes %q: %w", s, err)
	}
	if p.X == p.Y {
		return ParetoAxes{}, fmt.Errorf("pareto axes %q: the two axes are the same", s)
	}
	return p, nil
}

func parseParetoAxis(name string) (ParetoAxis, error) {
	if name == FailureAxis.Name() {
		return FailureAxis, nil
	}
	names := []string{FailureAxis.Name()}
	for _, m := range Metrics() {
		if m.Name() == name {
			return ParetoAxis{Metric: m}, nil
		}
		names = append(names, m.Name())
	}
	return ParetoAxis{}, fmt.Errorf("no axis %q (known: %s)", name, strings.Join(names, ", "))
}
