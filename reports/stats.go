package reports

import (
	"cmp"
	"errors"
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/loopsim/loopsim/sim"
)

// RankTest is the result of a rank test of candidate against base.
type RankTest struct {
	// P is the two-sided p-value.
	P float64 `json:"p"`
	// Effect is the rank-biserial correlation, in [-1, 1]: positive
	// when the candidate's values tend to be larger, 0 for no tendency.
	Effect float64 `json:"effect"`
	// N counts the pairs that differ (signed-rank) or all values (U).
	N int `json:"n"`
}

// wilcoxonExactLimit is the largest number of non-zero differences
// without ties for which [WilcoxonSignedRank] computes the exact null
// distribution; above it, or with ties, the normal approximation.
const wilcoxonExactLimit = 50

// WilcoxonSignedRank tests whether the paired differences d (candidate
// minus base, one per episode seed) are symmetric about zero. Zero
// differences are dropped (Wilcoxon's method); tied absolute
// differences get their average rank. With at most 50 differences and no
// ties the p-value is exact, otherwise it is the normal approximation
// with the tie correction, without continuity correction (as SciPy's
// wilcoxon does). Effect is the matched-pairs rank-biserial correlation
// (W+ - W-) / (W+ + W-).
func WilcoxonSignedRank(d []float64) RankTest {
	abs := make([]float64, 0, len(d))
	for _, x := range d {
		if x != 0 {
			abs = append(abs, x)
		}
	}
	n := len(abs)
	if n == 0 {
		return RankTest{P: 1}
	}
	slices.SortFunc(abs, func(x, y float64) int { return cmp.Compare(math.Abs(x), math.Abs(y)) })
	var wPlus, ties float64
	hasTies := false
	for i := 0; i < n; {
		j := i
		for j < n && math.Abs(abs[j]) == math.Abs(abs[i]) {
			j++
		}
		rank := float64(i+1+j) / 2 // average of ranks i+1..j
		for k := i; k < j; k++ {
			if abs[k] > 0 {
				wPlus += rank
			}
		}
		if t := float64(j - i); t > 1 {
			hasTies = true
			ties += t*t*t - t
		}
		i = j
	}
	nf := float64(n)
	total := nf * (nf + 1) / 2
	wMinus := total - wPlus
	res := RankTest{Effect: (wPlus - wMinus) / total, N: n}
	if !hasTies && n <= wilcoxonExactLimit {
		res.P = signedRankExactP(n, int(math.Round(min(wPlus, wMinus))))
		return res
	}
	mean := total / 2
	sd := math.Sqrt(nf*(nf+1)*(2*nf+1)/24 - ties/48)
	if sd == 0 {
		res.P = 1
		return res
	}
	z := math.Abs(wPlus-mean) / sd
	res.P = min(1, 2*distuv.UnitNormal.Survival(z))
	return res
}

// signedRankExactP is the exact two-sided p-value of the signed-rank
// statistic w (the smaller rank sum) with n differences: twice the
// probability of a rank sum at most w, each of the 2^n sign patterns
// equally likely.
func signedRankExactP(n, w int) float64 {
	max := n * (n + 1) / 2
	count := make([]float64, max+1) // count[s]: subsets of 1..k summing to s
	count[0] = 1
	for k := 1; k <= n; k++ {
		for s := k * (k + 1) / 2; s >= k; s-- {
			count[s] += count[s-k]
		}
	}
	var le float64
	for s := 0; s <= w; s++ {
		le += count[s]
	}
	return min(1, 2*le/math.Pow(2, float64(n)))
}

// MannWhitney tests whether candidate's values tend to differ from
// base's, unpaired: the U test of go-moremath (benchstat's), exact for
// small samples, else the normal approximation with tie and continuity
// corrections. Effect is the rank-biserial correlation 2U/(n1 n2) - 1,
// U counting the pairs where the candidate is larger (ties half).
func MannWhitney(base, cand []float64) RankTest {
	n1, n2 := len(base), len(cand)
	res := RankTest{P: 1, N: n1 + n2}
	r, err := stats.MannWhitneyUTest(cand, base, stats.LocationDiffers)
	if errors.Is(err, stats.ErrSamplesEqual) || err != nil {
		return res
	}
	res.P = min(1, r.P)
	res.Effect = 2*r.U/(float64(n1)*float64(n2)) - 1
	return res
}

// NewcombePaired is the interval of the difference of two paired
// proportions (candidate minus base) by Newcombe's square-and-add method
// for paired data (his method 10, Stat Med 1998;17:2635-2650): the two
// Wilson intervals combined with the correlation of the pairs. both
// counts pairs with the event in both, baseOnly and candOnly those with
// it in one, n all pairs.
func NewcombePaired(both, baseOnly, candOnly, n int, conf float64) sim.Interval {
	neither := n - both - baseOnly - candOnly
	k1, k2 := both+baseOnly, both+candOnly // base's and candidate's events
	p1, p2 := ratio(k1, n), ratio(k2, n)
	w1, w2 := sim.Wilson(k1, n, conf), sim.Wilson(k2, n, conf)
	// phi: the correlation of the pairs, with Newcombe's adjustment
	// (zero when ad - bc is in [0, n/2]).
	var phi float64
	if k1 > 0 && k1 < n && k2 > 0 && k2 < n {
		a := float64(both)*float64(neither) - float64(baseOnly)*float64(candOnly)
		switch {
		case a > float64(n)/2:
			a -= float64(n) / 2
		case a >= 0:
			a = 0
		}
		phi = a / math.Sqrt(float64(k1)*float64(n-k1)*float64(k2)*float64(n-k2))
	}
	d := p2 - p1
	sq := func(x, y float64) float64 { return math.Sqrt(max(0, x*x+y*y-2*phi*x*y)) }
	return sim.Interval{
		Lo: d - sq(p2-w2.Lo, w1.Hi-p1),
		Hi: d + sq(w2.Hi-p2, p1-w1.Lo),
	}
}

func ratio(k, n int) float64 {
	if n <= 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// Holm adjusts p-values for testing them together (Holm's step-down
// method, 1979): the k-th smallest is multiplied by m-k+1, the results
// made non-decreasing and capped at 1. Rejecting where the adjusted
// p-value is below alpha keeps the family-wise error rate at alpha.
func Holm(ps []float64) []float64 {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(ps[i], ps[j]) })
	out := make([]float64, m)
	running := 0.0
	for k, i := range order {
		running = max(running, min(1, float64(m-k)*ps[i]))
		out[i] = running
	}
	return out
}

// PairedMeanInterval is the mean of the paired differences d and its t
// interval (gonum's mean and variance, Student's t quantile).
func PairedMeanInterval(d []float64, conf float64) (float64, sim.Interval) {
	if len(d) == 0 {
		return 0, sim.Interval{}
	}
	mean, variance := stat.MeanVariance(d, nil)
	if len(d) < 2 {
		variance = 0
	}
	return mean, sim.MeanInterval(mean, variance, len(d), conf)
}

// MeanVariance is x's mean and sample variance (zero for fewer than two
// values).
func MeanVariance(x []float64) (float64, float64) {
	if len(x) == 0 {
		return 0, 0
	}
	m, v := stat.MeanVariance(x, nil)
	if len(x) < 2 {
		v = 0
	}
	return m, v
}
