package fakemodel

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// LogNormal is a log-normal distribution of a count (tokens, replies),
// given by its median and the standard deviation of its natural
// logarithm, rounded to an integer and clamped to [Min, Max]. Token
// counts in agent transcripts are close to log-normal: most replies are
// short, a few are very long.
type LogNormal struct {
	// Median is the distribution's median before clamping.
	Median float64 `json:"median"`
	// Sigma is the standard deviation of ln(x); 0 always draws Median.
	Sigma float64 `json:"sigma"`
	// Min is the smallest value drawn.
	Min int `json:"min"`
	// Max is the largest value drawn.
	Max int `json:"max"`
}

// Draw draws one value from r (one standard normal draw from the stream,
// whatever Sigma).
func (d LogNormal) Draw(r *rand.Rand) int {
	return d.clamp(d.dist(r).Rand())
}

// Quantile is the q-quantile of the distribution (0 < q < 1).
func (d LogNormal) Quantile(q float64) int {
	if d.Sigma == 0 {
		return d.clamp(d.Median)
	}
	return d.clamp(d.dist(nil).Quantile(q))
}

// dist is the distribution before rounding and clamping, drawing from r.
func (d LogNormal) dist(r *rand.Rand) distuv.LogNormal {
	l := distuv.LogNormal{Mu: math.Log(d.Median), Sigma: d.Sigma}
	if r != nil {
		l.Src = r
	}
	return l
}

// clamp rounds x and clamps it to [Min, Max], comparing as floats first:
// converting a float past the int range to int is not defined.
func (d LogNormal) clamp(x float64) int {
	x = math.Round(x)
	switch {
	case x >= float64(d.Max):
		return d.Max
	case x <= float64(d.Min):
		return d.Min
	}
	return int(x)
}

func (d LogNormal) validate() error {
	switch {
	case !(d.Median > 0) || math.IsInf(d.Median, 0):
		return fmt.Errorf("median %v must be positive", d.Median)
	case !(d.Sigma >= 0 && d.Sigma <= 5):
		return fmt.Errorf("sigma %v must be in [0, 5]", d.Sigma)
	case d.Min < 0:
		return fmt.Errorf("min %d is negative", d.Min)
	case d.Max < d.Min:
		return fmt.Errorf("max %d is below min %d", d.Max, d.Min)
	}
	return nil
}

// Uniform draws an integer uniformly from [Min, Max].
type Uniform struct {
	// Min is the smallest value drawn.
	Min int `json:"min"`
	// Max is the largest value drawn.
	Max int `json:"max"`
}

// Draw draws one value from r.
func (d Uniform) Draw(r *rand.Rand) int { return d.Min + r.IntN(d.Max-d.Min+1) }

func (d Uniform) validate() error {
	switch {
	case d.Min < 0:
		return fmt.Errorf("min %d is negative", d.Min)
	case d.Max < d.Min:
		return fmt.Errorf("max %d is below min %d", d.Max, d.Min)
	}
	return nil
}

// Geometric is Min plus a geometric count: each further unit is added
// with a fixed probability, chosen so that the mean (before the cap) is
// Mean. It is clamped to Max.
type Geometric struct {
	// Min is the smallest value drawn.
	Min int `json:"min"`
	// Mean is the mean before clamping; Mean == Min always draws Min.
	Mean float64 `json:"mean"`
	// Max is the largest value drawn.
	Max int `json:"max"`
}

// Draw draws one value from r: the first [geometricUnits] units one at
// a time (one number from r each, so the means in use draw as they
// always did), the rest, if the count gets that far, at once (one
// exponential draw from r, rounded down: a geometric count is
// memoryless, so the rest is again geometric with the same p). A draw
// thus takes at most geometricUnits+1 numbers from r, however large
// Mean and Max.
func (d Geometric) Draw(r *rand.Rand) int {
	p := d.more()
	n := d.Min
	for range geometricUnits {
		if n >= d.Max || r.Float64() >= p {
			return n
		}
		n++
	}
	if n >= d.Max {
		return n
	}
	// P(rest >= k) = p^k = e^(-rate k); rate = -ln p = ln(1 + 1/m),
	// with log1p so that it stays above 0 for the largest means
	rate := math.Log1p(1 / (d.Mean - float64(d.Min)))
	rest := math.Floor(distuv.Exponential{Rate: rate, Src: r}.Rand())
	if rest >= float64(d.Max-n) { // as floats: the rest may pass the int range
		return d.Max
	}
	return n + int(rest)
}

// more is the probability of each further unit: a geometric count on
// {0, 1, ...} with mean m has continuation probability m/(1+m).
func (d Geometric) more() float64 {
	m := d.Mean - float64(d.Min)
	return m / (1 + m)
}

func (d Geometric) validate() error {
	switch {
	case d.Min < 0:
		return fmt.Errorf("min %d is negative", d.Min)
	case !(d.Mean >= float64(d.Min)) || math.IsInf(d.Mean, 0):
		return fmt.Errorf("mean %v must be at least min %d", d.Mean, d.Min)
	case d.Max < d.Min:
		return fmt.Errorf("max %d is below min %d", d.Max, d.Min)
	}
	return nil
}

// geometricUnits is how many units a Geometric draw adds one at a time
// before it draws the rest at once. A count with the defaults' means
// (at most 3) gets that far with probability below 1e-100.
const geometricUnits = 1024
