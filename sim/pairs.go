package sim

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// The Pareto view pairs settings by episode (every setting of a run
// plays the same episodes) while the run keeps each episode's tokens,
// cost and failure: at most maxPaired values (17 bytes each) over at
// most maxPairedSettings settings. Larger runs, and axes of other
// metrics, compare as independent samples, which is conservative.
const (
	maxPaired         = 4_000_000
	maxPairedSettings = 60
)

// pairs holds each episode's tokens, cost and failure, per setting.
type pairs struct {
	tokens [][]int64
	cost   [][]int64 // micro-dollars
	failed [][]bool
	first  int // the index of the first episode kept (a shard's)
}

// newPairs is the store of episodes [lo, hi) of a run of settings x
// episodes, nil when the run is too large (the whole run's size
// decides, so that a shard keeps its pairs when the run would).
func newPairs(settings, episodes, lo, hi int) *pairs {
	if settings < 2 || settings > maxPairedSettings || settings*episodes > maxPaired {
		return nil
	}
	p := &pairs{tokens: make([][]int64, settings), cost: make([][]int64, settings), failed: make([][]bool, settings), first: lo}
	for i := range settings {
		p.tokens[i] = make([]int64, hi-lo)
		p.cost[i] = make([]int64, hi-lo)
		p.failed[i] = make([]bool, hi-lo)
	}
	return p
}

// set keeps ep of setting s. Each episode has its own elements, so the
// workers write without a lock.
func (p *pairs) set(s int, ep *Episode) {
	if p == nil {
		return
	}
	p.tokens[s][ep.Index-p.first] = ep.Values[Tokens]
	p.cost[s][ep.Index-p.first] = ep.Values[CostMicroUSD]
	p.failed[s][ep.Index-p.first] = ep.Failed()
}

// has reports whether m is kept per episode: tokens or cost.
func (p *pairs) has(m Metric) bool { return m == Tokens || m == CostMicroUSD }

// meanP is the two-sided p-value of the paired t test of settings i and
// j's values of m (tokens or cost), episode by episode.
func (p *pairs) meanP(m Metric, i, j int) float64 {
	a, b := p.tokens[i], p.tokens[j]
	if m == CostMicroUSD {
		a, b = p.cost[i], p.cost[j]
	}
	n := len(a)
	if n < 2 {
		return 1
	}
	var sum float64
	for k := range a {
		sum += float64(b[k] - a[k])
	}
	mean := sum / float64(n)
	var ss float64
	for k := range a {
		d := float64(b[k]-a[k]) - mean
		ss += d * d
	}
	se := math.Sqrt(ss / float64(n-1) / float64(n))
	if se == 0 {
		if mean == 0 {
			return 1
		}
		return 0
	}
	return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Survival(math.Abs(mean)/se)
}

// failedP is the exact McNemar p-value of settings i and j's failures,
// episode by episode.
func (p *pairs) failedP(i, j int) float64 {
	var onlyI, onlyJ int
	for k, fi := range p.failed[i] {
		switch fj := p.failed[j][k]; {
		case fi && !fj:
			onlyI++
		case fj && !fi:
			onlyJ++
		}
	}
	return McNemarExact(onlyI, onlyJ)
}

// McNemarExact is the exact two-sided p-value of McNemar's test for
// paired yes/no outcomes: of the pairs that disagree, onlyA said yes
// only in the first sample and onlyB only in the second; under no
// difference each is a fair coin. It is twice the binomial tail of the
// smaller count, at most 1.
func McNemarExact(onlyA, onlyB int) float64 {
	n := onlyA + onlyB
	if n == 0 {
		return 1
	}
	k := min(onlyA, onlyB)
	return min(1, 2*distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(k)))
}
