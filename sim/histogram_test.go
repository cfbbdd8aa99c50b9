package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHistogramBucketsCoverEveryValue(t *testing.T) {
	// every value falls in the bucket whose range holds it, and the
	// buckets tile the integers with no gap
	next := int64(0)
	for b := 0; b < 800; b++ {
		lo, hi := bucketRange(b)
		require.Equal(t, next, lo, "bucket %d's start", b)
		for _, v := range []int64{lo, hi, lo + (hi-lo)/2} {
			require.Equal(t, b, bucketOf(v), "bucketOf(%d) (range [%d, %d])", v, lo, hi)
		}
		if lo >= exactBelow {
			require.LessOrEqual(t, float64(hi-lo+1)/float64(lo), 1.0/(1<<subBits)+1e-9,
				"bucket %d [%d, %d] is wider than 1/%d of its start", b, lo, hi, 1<<subBits)
		}
		next = hi + 1
	}
}

func TestHistogramQuantiles(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h Histogram
	var vals []int64
	for range 20_000 {
		v := int64(r.ExpFloat64() * 5_000)
		h.Add(v)
		vals = append(vals, v)
	}
	slices.Sort(vals)
	for _, q := range []float64{0.1, 0.5, 0.9, 0.99} {
		exact := vals[int(q*float64(len(vals)))-1]
		got := h.Quantile(q)
		d := float64(got-exact) / float64(max(exact, 1))
		assert.LessOrEqual(t, d, 0.02, "q%.2f = %d, exact %d: off by %.1f%% (want within 2%%)", q, got, exact, 100*d)
		assert.GreaterOrEqual(t, d, -0.02, "q%.2f = %d, exact %d: off by %.1f%% (want within 2%%)", q, got, exact, 100*d)
	}
	assert.EqualValues(t, 20_000, h.Count(), "count")
}

func TestHistogramExactSmallValues(t *testing.T) {
	var h Histogram
	for v := range int64(10) {
		h.Add(v)
	}
	assert.EqualValues(t, 4, h.Quantile(0.5), "median of 0..9")
	assert.EqualValues(t, 9, h.Quantile(1), "max of 0..9")
	var empty Histogram
	assert.EqualValues(t, 0, empty.Quantile(0.5), "empty quantile")
}

func TestHistogramMergeIsOrderFree(t *testing.T) {
	var a, b, ab, ba Histogram
	for v := range int64(1000) {
		a.Add(v * v)
		b.Add(v * 7)
	}
	ab.Merge(&a)
	ab.Merge(&b)
	ba.Merge(&b)
	ba.Merge(&a)
	assert.Equal(t, ab.Buckets(), ba.Buckets(), "merge depends on order")
	assert.EqualValues(t, 2000, ab.Count(), "merge loses counts")
}
