package fakemodel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countedSource is a random source that counts its draws and fails the
// test past a limit, so a draw that would loop for ever fails at once
// instead of hanging.
type countedSource struct {
	t     *testing.T
	src   rand.Source
	n     int
	limit int
}

func (c *countedSource) Uint64() uint64 {
	c.n++
	if c.n > c.limit {
		c.t.Fatalf("a draw took more than %d random numbers", c.limit)
	}
	return c.src.Uint64()
}

// maxDrawsPerGeometric bounds the random numbers one Geometric draw
// takes, whatever its parameters.
const maxDrawsPerGeometric = 2 * geometricUnits

// TestGeometricDrawIsBoundedForHugeMeans: a mean and a max that
// Validate accepts, however large, take a bounded number of random
// numbers per draw (a draw once cost one per unit: a hang), and the
// draws keep the distribution: the mean before the cap, and the share
// capped at Max, P(X >= Max - Min) = p^(Max-Min).
func TestGeometricDrawIsBoundedForHugeMeans(t *testing.T) {
	const n = 4_000
	for _, c := range []struct {
		d Geometric
		// capped is the share drawn at Max.
		capped float64
	}{
		{Geometric{Min: 0, Mean: 1e12, Max: 1e15}, math.Pow(1e12/(1+1e12), 1e15)},
		{Geometric{Min: 5, Mean: 1e12 + 5, Max: 1e12 + 5}, math.Pow(1e12/(1+1e12), 1e12)},
		{Geometric{Min: 0, Mean: math.MaxFloat64 / 2, Max: math.MaxInt}, 1},
	} {
		require.NoError(t, c.d.validate(), "%+v", c.d)
		src := &countedSource{t: t, src: rand.NewPCG(7, 8)}
		r := rand.New(src)
		sum, atMax := 0.0, 0
		for range n {
			src.n, src.limit = 0, maxDrawsPerGeometric
			v := c.d.Draw(r)
			require.True(t, c.d.Min <= v && v <= c.d.Max, "%+v: draw %d out of bounds", c.d, v)
			sum += float64(v - c.d.Min)
			if v == c.d.Max {
				atMax++
			}
		}
		sd := math.Sqrt(n * c.capped * (1 - c.capped))
		assert.InDelta(t, c.capped*n, float64(atMax), 5*sd+1e-9, "%+v: draws at Max", c.d)
		if c.capped < 1e-6 {
			m := c.d.Mean - float64(c.d.Min)
			// a geometric count's sd is sqrt(m(1+m)), about m
			assert.InDelta(t, m, sum/n, 5*m/math.Sqrt(n), "%+v: mean", c.d)
		}
	}
}

// TestGeometricTailPastTheUnitLoop: around and beyond the number of
// units drawn one at a time, the draws follow P(X >= k) = p^k.
func TestGeometricTailPastTheUnitLoop(t *testing.T) {
	d := Geometric{Min: 0, Mean: 2 * geometricUnits, Max: math.MaxInt}
	p := d.more()
	r := rand.New(rand.NewPCG(9, 10))
	const n = 20_000
	draws := make([]int, n)
	for i := range draws {
		draws[i] = d.Draw(r)
	}
	for _, k := range []int{geometricUnits / 2, geometricUnits, geometricUnits + 1, 2 * geometricUnits, 6 * geometricUnits} {
		at := 0
		for _, v := range draws {
			if v >= k {
				at++
			}
		}
		want := math.Pow(p, float64(k))
		assert.InDelta(t, want*n, float64(at), 5*math.Sqrt(n*want*(1-want)), "P(X >= %d)", k)
	}
}

// The parameters in use draw exactly as the unit loop does, so seeded
// streams do not change: each further unit with probability p, one
// number from the stream per unit.
func TestGeometricDrawsAsTheUnitLoop(t *testing.T) {
	unitLoop := func(d Geometric, r *rand.Rand) int {
		p := d.more()
		n := d.Min
		for n < d.Max && r.Float64() < p {
			n++
		}
		return n
	}
	for _, d := range []Geometric{DefaultWorkload().Tools, DefaultWorkload().AfterBlock, DefaultCompactionRework,
		{Min: 0, Mean: 50, Max: 1_000}, {Min: 2, Mean: 2, Max: 2}} {
		a, b := rand.New(rand.NewPCG(11, 12)), rand.New(rand.NewPCG(11, 12))
		for i := range 20_000 {
			require.Equal(t, unitLoop(d, b), d.Draw(a), "%+v: draw %d", d, i)
		}
		assert.Equal(t, b.Uint64(), a.Uint64(), "%+v: the streams stay in step", d)
	}
}

// TestGeometricTailAboveAPositiveMin: the count above Min keeps its
// geometric tail past the unit loop, P(X - Min >= k) = p^k, when Min is
// not 0 (the mean is Mean, not Mean - Min or Mean + Min).
func TestGeometricTailAboveAPositiveMin(t *testing.T) {
	const lo = 3 * geometricUnits
	d := Geometric{Min: lo, Mean: lo + 2*geometricUnits, Max: math.MaxInt}
	p := d.more()
	r := rand.New(rand.NewPCG(11, 12))
	const n = 20_000
	draws := make([]int, n)
	for i := range draws {
		draws[i] = d.Draw(r)
		require.GreaterOrEqual(t, draws[i], lo)
	}
	for _, k := range []int{geometricUnits, 2 * geometricUnits, 6 * geometricUnits} {
		at := 0
		for _, v := range draws {
			if v-lo >= k {
				at++
			}
		}
		want := math.Pow(p, float64(k))
		assert.InDelta(t, want*n, float64(at), 5*math.Sqrt(n*want*(1-want)), "P(X - Min >= %d)", k)
	}
}
