package sim

// Pareto reports, for each point (x, y), whether it is on the Pareto
// front of the points when both coordinates are to be minimised: no
// other point is at least as good in both and better in one.
func Pareto(xs, ys []float64) []bool {
	front := make([]bool, len(xs))
	for i := range xs {
		front[i] = true
		for j := range xs {
			if j != i && xs[j] <= xs[i] && ys[j] <= ys[i] && (xs[j] < xs[i] || ys[j] < ys[i]) {
				front[i] = false
				break
			}
		}
	}
	return front
}

// ParetoFront marks the settings on the front of mean tokens per
// episode against failure rate.
func (r *Result) ParetoFront() []bool {
	xs := make([]float64, len(r.Settings))
	ys := make([]float64, len(r.Settings))
	for i, s := range r.Settings {
		xs[i], ys[i] = s.Aggregate.Mean(Tokens), s.Aggregate.FailureRate()
	}
	return Pareto(xs, ys)
}

// significance is the level of the Pareto view's tests.
const significance = 0.05

// Distinct reports whether settings i and j differ significantly (at 5%,
// two-sided) in mean tokens per episode or in failure rate. Paired by
// episode when the run kept the pairs ([Result.Paired]): the paired t
// test and McNemar's exact test; otherwise as independent samples:
// Welch's t and the two-proportion z test.
func (r *Result) Distinct(i, j int) bool {
	if r.pairs != nil {
		return r.pairs.tokensP(i, j) < significance || r.pairs.failedP(i, j) < significance
	}
	a, b := r.Settings[i].Aggregate, r.Settings[j].Aggregate
	pt := WelchP(a.Mean(Tokens), a.Variance(Tokens), a.Episodes, b.Mean(Tokens), b.Variance(Tokens), b.Episodes)
	pf := TwoProportionP(a.Failures(), a.Episodes, b.Failures(), b.Episodes)
	return pt < significance || pf < significance
}

// Paired reports whether [Result.Distinct] pairs the settings episode by
// episode: the run was not interrupted and kept at most four million
// values over at most sixty settings.
func (r *Result) Paired() bool { return r.pairs != nil }

// ParetoUncertain marks the settings off the Pareto front that no
// setting beating them beats significantly ([Result.Distinct]): with
// more episodes they might join the front.
func (r *Result) ParetoUncertain() []bool {
	front := r.ParetoFront()
	out := make([]bool, len(r.Settings))
	for i := range r.Settings {
		if front[i] {
			continue
		}
		ai := r.Settings[i].Aggregate
		out[i] = true
		for j := range r.Settings {
			aj := r.Settings[j].Aggregate
			beats := aj.Mean(Tokens) <= ai.Mean(Tokens) && aj.FailureRate() <= ai.FailureRate() &&
				(aj.Mean(Tokens) < ai.Mean(Tokens) || aj.FailureRate() < ai.FailureRate())
			if j != i && beats && r.Distinct(i, j) {
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
