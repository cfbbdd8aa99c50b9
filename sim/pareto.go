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

// Labels are the settings' short names (see [ShortLabels]).
func (r *Result) Labels() []string {
	settings := make([]Setting, len(r.Settings))
	for i, s := range r.Settings {
		settings[i] = s.Setting
	}
	return ShortLabels(settings)
}
