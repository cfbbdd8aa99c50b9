package sim

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/loopsim/loopsim/fakemodel"
)

// CVOptions configure [CrossValidate].
type CVOptions struct {
	// Fit configures each fold's fit; its Population and Spreads are
	// set per fold.
	Fit FitOptions
	// Population fits a population on each fold's training sources
	// ([FitPopulation]); without it each fold fits one user.
	Population bool
	// Users is how many simulated users each held-out source is compared
	// with (at least 20).
	Users int
}

// CrossValidation is a leave-one-source-out cross-validation of the
// fit: for each source, the workload fitted on the other sources
// predicts that source's figures.
type CrossValidation struct {
	// Population is set when each fold fitted a population.
	Population bool `json:"population"`
	// Users is the number of simulated users per held-out source.
	Users int `json:"users"`
	// Folds are the folds, one per source held out.
	Folds []CVFold `json:"folds"`
	// Cells are the predictions, per held-out source and figure.
	Cells []CVCell `json:"cells"`
}

// CVFold is one fold: the source held out, its size, and the population
// fitted without it.
type CVFold struct {
	// Source is the source held out.
	Source string `json:"source"`
	// Sessions, Calls and Prompts count the held-out source; each
	// simulated user plays Prompts episodes (at least one).
	Sessions int `json:"sessions"`
	Calls    int `json:"calls"`
	Prompts  int `json:"prompts"`
	// Population is the population fitted on the other sources.
	Population fakemodel.Population `json:"population"`
}

// CVCell is one figure of one held-out source against its prediction.
type CVCell struct {
	// Source is the held-out source; Figure the calibration figure.
	Source string `json:"source"`
	Figure string `json:"figure"`
	// N is the number of the source's values the figure was measured on.
	N int `json:"n"`
	// Real is the source's figure; Predicted the figure of every
	// simulated user pooled.
	Real      float64 `json:"real"`
	Predicted float64 `json:"predicted"`
	// Low and High are the 10th and 90th percentiles of the figure over
	// the simulated users, each of the source's size: the band a user
	// like it falls in 80% of the time, if the fit is right.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Error is the prediction's relative error, (Predicted - Real) / Real.
func (c CVCell) Error() float64 { return (c.Predicted - c.Real) / c.Real }

// Inside reports whether the real figure lies in the band.
func (c CVCell) Inside() bool { return c.Real >= c.Low && c.Real <= c.High }

// CVFigure summarises one figure over the held-out sources.
type CVFigure struct {
	// Figure is the calibration figure.
	Figure string `json:"figure"`
	// Sources counts the held-out sources that measure it.
	Sources int `json:"sources"`
	// MeanAbsError is the mean of |Error| over them.
	MeanAbsError float64 `json:"mean_abs_error"`
	// Inside counts those whose figure lay in the band; WithinTolerance
	// those predicted within the figure's calibration tolerance.
	Inside          int `json:"inside"`
	WithinTolerance int `json:"within_tolerance"`
}

// CrossValidate fits the workload once per source, on every other
// source (with a population from their spread when o.Population), and
// predicts the source held out: o.Users simulated users, each playing as
// many episodes (one user prompt each) as the source has prompts and
// sharing one draw of the population ([CalibrateUsers]), measured as
// the source was. Every cell's figure pools the users; its band is the
// spread of the figure from user to user. It needs at least two sources.
func CrossValidate(ctx context.Context, sources []Source, o CVOptions) (*CrossValidation, error) {
	if len(sources) < 2 {
		return nil, fmt.Errorf("cross-validation: %d sources; leaving one out needs at least two (sources are the folders holding the logs)", len(sources))
	}
	o.Users = max(o.Users, 20)
	cv := &CrossValidation{Population: o.Population, Users: o.Users}
	figs := figureTable()
	for h := range sources {
		held := &sources[h]
		var train Figures
		var rest []Source
		for i := range sources {
			if i != h {
				train.Merge(&sources[i].Figures)
				rest = append(rest, sources[i])
			}
		}
		fo := o.Fit
		fo.Population, fo.Spreads = fakemodel.Population{}, nil
		if o.Population {
			fo.Population, fo.Spreads = FitPopulation(rest)
		}
		fit, err := FitWorkload(ctx, &train, fo)
		if err != nil {
			return nil, fmt.Errorf("cross-validation, %s held out: %w", held.Name, err)
		}
		fold := CVFold{Source: held.Name, Sessions: held.Figures.Sessions, Calls: held.Figures.Tools.N(),
			Prompts: held.Figures.CallsPerPrompt.N(), Population: fo.Population}
		cv.Folds = append(cv.Folds, fold)
		users, err := CalibrateUsers(ctx, fit.Setting, o.Users, max(fold.Prompts, 1), o.Fit.Seed, o.Fit.Workers)
		if err != nil {
			return nil, fmt.Errorf("cross-validation, %s held out: %w", held.Name, err)
		}
		var pooled Figures
		for i := range users {
			pooled.Merge(&users[i])
		}
		for _, f := range figs {
			n := f.n(&held.Figures)
			if n == 0 || f.n(&pooled) == 0 {
				continue
			}
			real := f.get(&held.Figures)
			if real == 0 {
				continue
			}
			var per []float64
			for i := range users {
				if f.n(&users[i]) > 0 {
					per = append(per, f.get(&users[i]))
				}
			}
			c := CVCell{Source: held.Name, Figure: f.name, N: n, Real: real, Predicted: f.get(&pooled)}
			c.Low, c.High = band(per)
			cv.Cells = append(cv.Cells, c)
		}
	}
	return cv, nil
}

// band is the 10th and 90th percentile of xs (sorted in place).
func band(xs []float64) (lo, hi float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	slices.Sort(xs)
	return stat.Quantile(0.1, stat.Empirical, xs, nil), stat.Quantile(0.9, stat.Empirical, xs, nil)
}

// Figures summarises the cells per figure, in the calibration table's
// order.
func (cv *CrossValidation) Figures() []CVFigure {
	var out []CVFigure
	for _, f := range figureTable() {
		s := CVFigure{Figure: f.name}
		for _, c := range cv.Cells {
			if c.Figure != f.name {
				continue
			}
			s.Sources++
			s.MeanAbsError += math.Abs(c.Error())
			if c.Inside() {
				s.Inside++
			}
			if math.Abs(c.Error()) <= f.tol {
				s.WithinTolerance++
			}
		}
		if s.Sources == 0 {
			continue
		}
		s.MeanAbsError /= float64(s.Sources)
		out = append(out, s)
	}
	return out
}

// Overall summarises every cell: how many there are, how many lay in
// their band, how many were predicted within tolerance, and the mean
// |Error|.
func (cv *CrossValidation) Overall() (cells, inside, withinTolerance int, meanAbsError float64) {
	for _, f := range cv.Figures() {
		cells += f.Sources
		inside += f.Inside
		withinTolerance += f.WithinTolerance
		meanAbsError += f.MeanAbsError * float64(f.Sources)
	}
	if cells > 0 {
		meanAbsError /= float64(cells)
	}
	return cells, inside, withinTolerance, meanAbsError
}
