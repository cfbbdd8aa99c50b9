package sim

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence is the level of every interval loopsim prints: 95%.
const Confidence = 0.95

// Interval is a two-sided confidence interval.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Contains reports whether x is in the interval.
func (i Interval) Contains(x float64) bool { return i.Lo <= x && x <= i.Hi }

// zFor is the standard normal quantile of a two-sided interval at level
// conf: 1.96 at 95%.
func zFor(conf float64) float64 { return distuv.UnitNormal.Quantile(1 - (1-conf)/2) }

// Wilson is the Wilson score interval of a proportion: k successes of n,
// at level conf. It stays inside [0, 1] and behaves at k = 0 and k = n,
// where the normal approximation collapses. n = 0 gives [0, 1].
func Wilson(k, n int, conf float64) Interval {
	if n <= 0 {
		return Interval{0, 1}
	}
	z := zFor(conf)
	nf, p := float64(n), float64(k)/float64(n)
	z2n := z * z / nf
	mid := (p + z2n/2) / (1 + z2n)
	half := z / (1 + z2n) * math.Sqrt(p*(1-p)/nf+z2n/(4*nf))
	return Interval{max(0, mid-half), min(1, mid+half)}
}

// NewcombeDiff is the interval of the difference k2/n2 - k1/n1 of two
// independent proportions by Newcombe's hybrid score method (his method
// 10, Stat Med 1998;17:873-890): the two Wilson intervals squared and
// added.
func NewcombeDiff(k1, n1, k2, n2 int, conf float64) Interval {
	p1, p2 := ratio(k1, n1), ratio(k2, n2)
	w1, w2 := Wilson(k1, n1, conf), Wilson(k2, n2, conf)
	d := p2 - p1
	return Interval{
		Lo: d - math.Hypot(p2-w2.Lo, w1.Hi-p1),
		Hi: d + math.Hypot(w2.Hi-p2, p1-w1.Lo),
	}
}

func ratio(k, n int) float64 {
	if n <= 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// MeanInterval is the t interval of a mean from n values of the given
// sample variance (n-1 denominator): mean ± t(n-1) s/√n. With fewer
// than two values it is [mean, mean].
func MeanInterval(mean, variance float64, n int, conf float64) Interval {
	if n < 2 || variance <= 0 {
		return Interval{mean, mean}
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1 - (1-conf)/2)
	half := t * math.Sqrt(variance/float64(n))
	return Interval{mean - half, mean + half}
}

// WelchInterval is the interval of the difference mean2 - mean1 of two
// independent samples by Welch's t (Welch-Satterthwaite degrees of
// freedom).
func WelchInterval(mean1, var1 float64, n1 int, mean2, var2 float64, n2 int, conf float64) Interval {
	d := mean2 - mean1
	if n1 < 2 || n2 < 2 {
		return Interval{d, d}
	}
	a, b := var1/float64(n1), var2/float64(n2)
	se := math.Sqrt(a + b)
	if se == 0 {
		return Interval{d, d}
	}
	df := (a + b) * (a + b) / (a*a/float64(n1-1) + b*b/float64(n2-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-conf)/2)
	return Interval{d - t*se, d + t*se}
}

// WelchP is the two-sided p-value of Welch's t test of mean2 = mean1.
func WelchP(mean1, var1 float64, n1 int, mean2, var2 float64, n2 int) float64 {
	if n1 < 2 || n2 < 2 {
		return 1
	}
	a, b := var1/float64(n1), var2/float64(n2)
	se := math.Sqrt(a + b)
	if se == 0 {
		if mean1 == mean2 {
			return 1
		}
		return 0
	}
	df := (a + b) * (a + b) / (a*a/float64(n1-1) + b*b/float64(n2-1))
	t := math.Abs(mean2-mean1) / se
	return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(t)
}

// TwoProportionP is the two-sided p-value of the pooled two-proportion z
// test of k1/n1 = k2/n2 (Pearson's chi-squared test of the 2x2 table,
// without continuity correction).
func TwoProportionP(k1, n1, k2, n2 int) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 1
	}
	p := float64(k1+k2) / float64(n1+n2)
	se := math.Sqrt(p * (1 - p) * (1/float64(n1) + 1/float64(n2)))
	if se == 0 {
		return 1
	}
	z := math.Abs(ratio(k2, n2)-ratio(k1, n1)) / se
	return 2 * distuv.UnitNormal.Survival(z)
}
