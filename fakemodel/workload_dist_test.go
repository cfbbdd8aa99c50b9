package fakemodel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLogNormalMatchesItsQuantiles(t *testing.T) {
	d := LogNormal{Median: 200, Sigma: 1.2, Min: 1, Max: 1_000_000}
	r := rand.New(rand.NewPCG(1, 2))
	draws := make([]int, 50_000)
	for i := range draws {
		draws[i] = d.Draw(r)
	}
	slices.Sort(draws)
	for _, q := range []float64{0.1, 0.5, 0.9, 0.99} {
		got, want := float64(draws[int(q*float64(len(draws)))]), float64(d.Quantile(q))
		assert.InEpsilon(t, want, got, 0.05, "q%.2f: drawn against the distribution's quantile", q)
	}
	assert.Equal(t, 200, d.Quantile(0.5), "median")
}

func TestLogNormalClamps(t *testing.T) {
	d := LogNormal{Median: 100, Sigma: 3, Min: 50, Max: 150}
	r := rand.New(rand.NewPCG(3, 4))
	for range 10_000 {
		v := d.Draw(r)
		require.True(t, 50 <= v && v <= 150, "draw %d outside [50, 150]", v)
	}
	assert.Equal(t, 7, (LogNormal{Median: 7, Max: 100}).Draw(r), "sigma 0 must always draw the median")
}

func TestGeometricMean(t *testing.T) {
	for _, d := range []Geometric{{Min: 1, Mean: 1.13, Max: 100}, {Min: 0, Mean: 2, Max: 1_000}, {Min: 3, Mean: 3, Max: 9}} {
		r := rand.New(rand.NewPCG(5, 6))
		sum := 0
		const n = 100_000
		for range n {
			v := d.Draw(r)
			require.True(t, d.Min <= v && v <= d.Max, "%+v: draw %d outside [min, max]", d, v)
			sum += v
		}
		assert.InDelta(t, d.Mean, float64(sum)/n, 0.02*d.Mean+0.01, "%+v: mean", d)
	}
}

func TestUniformRange(t *testing.T) {
	d := Uniform{Min: 22_000, Max: 22_003}
	r := rand.New(rand.NewPCG(7, 8))
	seen := map[int]bool{}
	for range 1_000 {
		v := d.Draw(r)
		require.True(t, d.Min <= v && v <= d.Max, "draw %d outside [%d, %d]", v, d.Min, d.Max)
		seen[v] = true
	}
	assert.Len(t, seen, 4, "distinct values drawn")
}

func TestDistributionValidation(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
	}{
		{"lognormal median 0", LogNormal{Median: 0, Max: 1}.validate()},
		{"lognormal sigma < 0", LogNormal{Median: 1, Sigma: -1, Max: 1}.validate()},
		{"lognormal max < min", LogNormal{Median: 1, Min: 5, Max: 4}.validate()},
		{"uniform negative", Uniform{Min: -1, Max: 3}.validate()},
		{"uniform max < min", Uniform{Min: 4, Max: 3}.validate()},
		{"geometric mean < min", Geometric{Min: 2, Mean: 1, Max: 3}.validate()},
		{"geometric NaN", Geometric{Min: 0, Mean: math.NaN(), Max: 3}.validate()},
	} {
		assert.Error(t, c.err, c.name)
	}
}

// A log-normal value past the int range is clamped to Max like any other
// value above it, not wrapped round to Min.
func TestLogNormalClampsHugeValuesToMax(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	d := LogNormal{Median: 1e19, Min: 1, Max: 1_000}
	assert.Equal(t, 1_000, d.Draw(r), "median 1e19, sigma 0")
	assert.Equal(t, 1_000, d.Quantile(0.5), "median 1e19, sigma 0")
	d = LogNormal{Median: 1e30, Sigma: 2, Min: 1, Max: 1_000}
	for range 1_000 {
		require.Equal(t, 1_000, d.Draw(r), "median 1e30, sigma 2")
	}
	// bounds a float cannot hold: a value at the float nearest one of them
	// is still that bound
	assert.Equal(t, math.MaxInt64, LogNormal{Median: math.MaxInt64, Min: 1, Max: math.MaxInt64}.Quantile(0.5), "max MaxInt64")
	lo := 1<<60 + 1
	assert.Equal(t, lo, LogNormal{Median: 1 << 60, Min: lo, Max: 1 << 61}.Quantile(0.5), "min 2^60+1")
}
