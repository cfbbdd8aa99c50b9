package sim

import (
	"math/big"
	"math/bits"

	"github.com/loopsim/loopsim/loop"
)

// Uint128 is an unsigned 128-bit integer: a sum of squares that cannot
// overflow (a million episodes of 10^9 tokens each sum to 10^24 in
// squares) and adds exactly, in any order.
type Uint128 struct {
	Hi, Lo uint64
}

// addSquare adds v² (v < 0 counts as 0, as the histogram does).
func (u *Uint128) addSquare(v int64) {
	x := uint64(max(v, 0))
	hi, lo := bits.Mul64(x, x)
	u.add(Uint128{hi, lo})
}

func (u *Uint128) add(o Uint128) {
	var carry uint64
	u.Lo, carry = bits.Add64(u.Lo, o.Lo, 0)
	u.Hi, _ = bits.Add64(u.Hi, o.Hi, carry)
}

// big is u as a big integer.
func (u Uint128) big() *big.Int {
	b := new(big.Int).SetUint64(u.Hi)
	b.Lsh(b, 64)
	return b.Or(b, new(big.Int).SetUint64(u.Lo))
}

// Variance is metric m's sample variance over the episodes (n-1
// denominator), computed exactly from the count, the sum and the sum of
// squares; 0 for fewer than two episodes.
func (a *Aggregate) Variance(m Metric) float64 {
	n := int64(a.Episodes)
	if n < 2 {
		return 0
	}
	// (n Σx² - (Σx)²) / (n (n-1))
	num := new(big.Int).Mul(big.NewInt(n), a.SumSq[m].big())
	s := big.NewInt(max(a.Sum[m], 0))
	num.Sub(num, s.Mul(s, s))
	v, _ := new(big.Rat).SetFrac(num, big.NewInt(n*(n-1))).Float64()
	return max(v, 0)
}

// MeanInterval is the 95% t interval of metric m's mean.
func (a *Aggregate) MeanInterval(m Metric) Interval {
	return MeanInterval(a.Mean(m), a.Variance(m), a.Episodes, Confidence)
}

// FailureInterval is the 95% Wilson interval of the failure rate.
func (a *Aggregate) FailureInterval() Interval { return Wilson(a.Failures(), a.Episodes, Confidence) }

// RateInterval is the 95% Wilson interval of the share of episodes that
// ended with t.
func (a *Aggregate) RateInterval(t loop.Terminal) Interval {
	return Wilson(a.Terminals[t], a.Episodes, Confidence)
}
