package sim

// Pareto reports, for each point (x, y), whether it is on the Pareto
// front of the points when both coordinates are to be minimised: no
// other point is at least as good in both and better in one.
func Pareto(xs, ys []float64) []bool {
	front := make([]bool, len(xs))
	for i := range xs {
		front[i] = true
		for j := range xs {
			if j != i && beats(xs[j], ys[j], xs[i], ys[i]) {
				front[i] = false
				break
			}
		}
	}
	return front
}

// beats reports whether (x1, y1) is at least as good as (x2, y2) in both
// and better in one, both to be minimised.
func beats(x1, y1, x2, y2 float64) bool {
	return x1 <= x2 && y1 <= y2 && (x1 < x2 || y1 < y2)
}

// ParetoAxes are the figures the Pareto view of r minimises:
// [DefaultParetoAxes] unless [Result.SetParetoAxes] chose others.
func (r *Result) ParetoAxes() ParetoAxes {
	if r.axes == nil {
		return DefaultParetoAxes
	}
	return *r.axes
}

// SetParetoAxes chooses the figures the Pareto view (the front, the
// tests, the plot, the summary) minimises.
func (r *Result) SetParetoAxes(a ParetoAxes) { r.axes = &a }

// paretoPoints are the settings' figures on the Pareto axes.
func (r *Result) paretoPoints() (xs, ys []float64) {
	ax := r.ParetoAxes()
	xs = make([]float64, len(r.Settings))
	ys = make([]float64, len(r.Settings))
	for i, s := range r.Settings {
		xs[i], _ = ax.X.value(s.Aggregate)
		ys[i], _ = ax.Y.value(s.Aggregate)
	}
	return xs, ys
}

// ParetoFront marks the settings on the front of the Pareto axes (by
// default mean cost per episode against failure rate).
func (r *Result) ParetoFront() []bool { return Pareto(r.paretoPoints()) }

// significance is the level of the Pareto view's tests.
const significance = 0.05

// Distinct reports whether settings i and j differ significantly (at 5%,
// two-sided) on either Pareto axis. Paired by episode when the run kept
// the pairs ([Result.Paired]) and the axis is the failure rate or a
// metric kept per episode (tokens, cost): the paired t test and
// McNemar's exact test; otherwise as independent samples: Welch's t and
// the two-proportion z test.
func (r *Result) Distinct(i, j int) bool {
	ax := r.ParetoAxes()
	return r.axisP(ax.X, i, j) < significance || r.axisP(ax.Y, i, j) < significance
}

// axisP is the p-value of the test of settings i and j on axis a.
func (r *Result) axisP(a ParetoAxis, i, j int) float64 {
	ai, aj := r.Settings[i].Aggregate, r.Settings[j].Aggregate
	switch {
	case a.Failure && r.pairs != nil:
		return r.pairs.failedP(i, j)
	case a.Failure:
		return TwoProportionP(ai.Failures(), ai.Episodes, aj.Failures(), aj.Episodes)
	case r.pairs != nil && r.pairs.has(a.Metric):
		return r.pairs.meanP(a.Metric, i, j)
	}
	m := a.Metric
	return WelchP(ai.Mean(m), ai.Variance(m), ai.Episodes, aj.Mean(m), aj.Variance(m), aj.Episodes)
}

// Paired reports whether [Result.Distinct] pairs the settings episode by
// episode: the run was not interrupted and kept at most four million
// values over at most sixty settings, and each Pareto axis is the
// failure rate, tokens or cost.
func (r *Result) Paired() bool {
	if r.pairs == nil {
		return false
	}
	ax := r.ParetoAxes()
	return (ax.X.Failure || r.pairs.has(ax.X.Metric)) && (ax.Y.Failure || r.pairs.has(ax.Y.Metric))
}

// ParetoUncertain marks the settings off the Pareto front that no
// setting beating them beats significantly ([Result.Distinct]): with
// more episodes they might join the front.
func (r *Result) ParetoUncertain() []bool {
	xs, ys := r.paretoPoints()
	front := Pareto(xs, ys)
	out := make([]bool, len(r.Settings))
	for i := range r.Settings {
		if front[i] {
			continue
		}
		out[i] = true
		for j := range r.Settings {
			if j != i && beats(xs[j], ys[j], xs[i], ys[i]) && r.Distinct(i, j) {
				out[i] = false
				break
			}
		}
	}
	return out
}

// Labels are the settings' short names (see [ShortLabels]).
func (r *Result) Labels() []string {
	settings := make([]Setting, len(r.Settings))
	for i, s := range r.Settings {
		settings[i] = s.Setting
	}
	return ShortLabels(settings)
}
