package sim

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"gonum.org/v1/gonum/stat"
)

// TestVariance: the exact streaming variance agrees with gonum's
// two-pass one, whatever the split of the episodes between aggregates,
// and survives values whose squares overflow 64 bits.
func TestVariance(t *testing.T) {
	var xs []float64
	whole, a, b := NewAggregate(), NewAggregate(), NewAggregate()
	for i := range 1000 {
		v := int64((i*7919)%100_003) * int64(1+i%5)
		xs = append(xs, float64(v))
		ep := Episode{Index: i}
		ep.Values[Tokens] = v
		whole.Add(&ep)
		if i%3 == 0 {
			a.Add(&ep)
		} else {
			b.Add(&ep)
		}
	}
	a.Merge(b)
	_, want := stat.MeanVariance(xs, nil)
	assert.InEpsilon(t, want, whole.Variance(Tokens), 1e-12)
	assert.Equal(t, whole.Variance(Tokens), a.Variance(Tokens))
	assert.Zero(t, whole.Variance(Turns))

	big := NewAggregate()
	for _, v := range []int64{4e9, 6e9} { // squares beyond 2^64
		ep := Episode{}
		ep.Values[Tokens] = v
		big.Add(&ep)
	}
	assert.InEpsilon(t, 2e18, big.Variance(Tokens), 1e-12) // ((1e9)² * 2) / 1
	ci := big.MeanInterval(Tokens)
	assert.InDelta(t, 5e9, (ci.Lo+ci.Hi)/2, 1)
	assert.False(t, math.IsNaN(ci.Lo))
}
