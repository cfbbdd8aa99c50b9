package sim

import (
	"math"
	"math/bits"
)

// subBits sets the histogram's resolution: 2^subBits buckets per power
// of two.
const subBits = 5

// exactBelow is the value under which every integer has its own bucket.
const exactBelow = 2 << subBits

// Histogram counts non-negative integers in buckets that are exact below
// 64 and within 1/32 (3%) of the value above. Its size grows with the
// logarithm of the largest value counted, never with the count, and two
// histograms merge by adding their buckets, so merging in any order gives
// the same histogram.
type Histogram struct {
	counts []uint64
	n      uint64
}

// Bucket is a range of values [Lo, Hi] and how many fell in it.
type Bucket struct {
	Lo, Hi int64
	Count  uint64
}

// Add counts v (a negative v counts as 0).
func (h *Histogram) Add(v int64) {
	b := bucketOf(max(v, 0))
	if b >= len(h.counts) {
		h.counts = append(h.counts, make([]uint64, b+1-len(h.counts))...)
	}
	h.counts[b]++
	h.n++
}

// Merge adds o's counts to h.
func (h *Histogram) Merge(o *Histogram) {
	if len(o.counts) > len(h.counts) {
		h.counts = append(h.counts, make([]uint64, len(o.counts)-len(h.counts))...)
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
}

// Count is how many values were added.
func (h *Histogram) Count() uint64 { return h.n }

// Quantile is the q-quantile (0 <= q <= 1) of the values added: the
// middle of the bucket holding the value of rank ceil(q*n), exact below
// 64. It is 0 for an empty histogram.
func (h *Histogram) Quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	rank := max(uint64(math.Ceil(q*float64(h.n))), 1)
	var seen uint64
	for b, c := range h.counts {
		seen += c
		if seen >= rank {
			lo, hi := bucketRange(b)
			return lo + (hi-lo)/2
		}
	}
	lo, _ := bucketRange(len(h.counts) - 1)
	return lo
}

// Buckets lists the non-empty buckets in increasing order.
func (h *Histogram) Buckets() []Bucket {
	var out []Bucket
	for b, c := range h.counts {
		if c > 0 {
			lo, hi := bucketRange(b)
			out = append(out, Bucket{Lo: lo, Hi: hi, Count: c})
		}
	}
	return out
}

// bucketOf is the bucket of v >= 0: v itself below exactBelow, else
// 2^subBits buckets for each power of two.
func bucketOf(v int64) int {
	if v < exactBelow {
		return int(v)
	}
	k := bits.Len64(uint64(v)) - 1 // v is in [2^k, 2^(k+1)), k > subBits
	sub := int(v>>(k-subBits)) - 1<<subBits
	return exactBelow + (k-subBits-1)<<subBits + sub
}

// bucketRange is the smallest and largest value of bucket b.
func bucketRange(b int) (lo, hi int64) {
	if b < exactBelow {
		return int64(b), int64(b)
	}
	k := (b-exactBelow)>>subBits + subBits + 1
	sub := (b - exactBelow) & (1<<subBits - 1)
	shift := k - subBits
	lo = int64(1<<subBits+sub) << shift
	return lo, lo + 1<<shift - 1
}
