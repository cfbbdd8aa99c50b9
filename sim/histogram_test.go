package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestHistogramBucketsCoverEveryValue(t *testing.T) {
	// every value falls in the bucket whose range holds it, and the
	// buckets tile the integers with no gap
	next := int64(0)
	for b := 0; b < 800; b++ {
		lo, hi := bucketRange(b)
		if lo != next {
			t.Fatalf("bucket %d starts at %d, want %d", b, lo, next)
		}
		for _, v := range []int64{lo, hi, lo + (hi-lo)/2} {
			if got := bucketOf(v); got != b {
				t.Fatalf("bucketOf(%d) = %d, want %d (range [%d, %d])", v, got, b, lo, hi)
			}
		}
		if lo >= exactBelow && float64(hi-lo+1)/float64(lo) > 1.0/(1<<subBits)+1e-9 {
			t.Fatalf("bucket %d [%d, %d] is wider than 1/%d of its start", b, lo, hi, 1<<subBits)
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
		if d := float64(got-exact) / float64(max(exact, 1)); d > 0.02 || d < -0.02 {
			t.Errorf("q%.2f = %d, exact %d: off by %.1f%% (want within 2%%)", q, got, exact, 100*d)
		}
	}
	if h.Count() != 20_000 {
		t.Errorf("count %d", h.Count())
	}
}

func TestHistogramExactSmallValues(t *testing.T) {
	var h Histogram
	for v := range int64(10) {
		h.Add(v)
	}
	if got := h.Quantile(0.5); got != 4 {
		t.Errorf("median of 0..9 = %d, want 4", got)
	}
	if got := h.Quantile(1); got != 9 {
		t.Errorf("max of 0..9 = %d, want 9", got)
	}
	var empty Histogram
	if got := empty.Quantile(0.5); got != 0 {
		t.Errorf("empty quantile = %d", got)
	}
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
	if !slices.Equal(ab.Buckets(), ba.Buckets()) || ab.Count() != 2000 {
		t.Errorf("merge depends on order or loses counts")
	}
}
