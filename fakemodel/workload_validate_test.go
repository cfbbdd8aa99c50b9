package fakemodel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"
)

// Every workload parameter accepts the ends of its range and names the
// parameter and the value when set past them.
func TestWorkloadParametersAtTheirBounds(t *testing.T) {
	for _, c := range []struct {
		path, value string
		want        string // "" means valid
	}{
		{"output.median", "0.5", ""},
		{"output.median", "0", "workload output: median 0 must be positive"},
		{"output.sigma", "0", ""},
		{"output.sigma", "5", ""},
		{"output.sigma", "5.5", "workload output: sigma 5.5 must be in [0, 5]"},
		{"output.sigma", "-0.1", "workload output: sigma -0.1 must be in [0, 5]"},
		{"output.min", "0", ""},
		{"output.min", "-1", "workload output: min -1 is negative"},
		{"output.max", "1", ""}, // the default min
		{"output.max", "0", "workload output: max 0 is below min 1"},
		{"start_context.min", "0", ""},
		{"start_context.min", "-1", "workload start_context: min -1 is negative"},
		{"start_context.max", "24562", ""}, // the default min
		{"start_context.max", "24561", "workload start_context: max 24561 is below min 24562"},
		{"population.output", "3", ""},
		{"population.output", "3.01", "workload population.output: spread 3.01 must be in [0, 3]"},
		{"tools.mean", "1", ""}, // the default min
		{"tools.mean", "0.99", "workload tools: mean 0.99 must be at least min 1"},
		{"tools.max", "1", ""},
		{"tools.max", "0", "workload tools: max 0 is below min 1"},
		{"after_block.min", "-1", "workload after_block: min -1 is negative"},
		{"faults.abort", "0", ""},
		{"faults.abort", "1", ""},
		{"faults.abort", "-0.01", "workload faults.abort: -0.01 is not a probability in [0, 1]"},
		{"faults.persist", "1.01", "workload faults.persist: 1.01 is not a probability in [0, 1]"},
		{"faults.stream_error_after_content", "1", ""},
		{"faults.stream_error_after_content", "1.5", "workload faults.stream_error_after_content: 1.5 is not a probability in [0, 1]"},
		{"faults.stream_error_after_content", "NaN", "workload faults.stream_error_after_content: NaN is not a probability in [0, 1]"},
		{"swram", "true", `workload has no parameter "swram"`},
		{"faults.abortt", "1", `workload has no parameter "faults.abortt"`},
	} {
		_, err := DefaultWorkload().With(c.path, c.value)
		if c.want == "" {
			assert.NoError(t, err, "%s = %s", c.path, c.value)
		} else {
			assert.ErrorContains(t, err, c.want, "%s = %s", c.path, c.value)
		}
	}
}

// A log-normal's q-quantile is its median times e^(sigma z_q), z_q the
// standard normal's quantile, rounded and clamped; sigma 0 is the median
// at every q.
func TestLogNormalQuantile(t *testing.T) {
	for _, sigma := range []float64{0, 0.5, 1, 2} {
		d := LogNormal{Median: 100, Sigma: sigma, Min: 1, Max: 1_000_000}
		for _, q := range []float64{0.1, 0.5, 0.9} {
			want := int(math.Round(100 * math.Exp(sigma*distuv.UnitNormal.Quantile(q))))
			assert.Equal(t, want, d.Quantile(q), "sigma %v, q %v", sigma, q)
		}
	}
	assert.Equal(t, 150, LogNormal{Median: 100, Sigma: 1, Min: 1, Max: 150}.Quantile(0.9), "clamped to max")
	assert.Equal(t, 50, LogNormal{Median: 100, Sigma: 1, Min: 50, Max: 1_000}.Quantile(0.1), "clamped to min")
}

// A geometric count never passes its Max, and reaches it when more is
// likely; Min == Max always draws Min.
func TestGeometricStopsAtMax(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	d := Geometric{Min: 0, Mean: 50, Max: 3}
	atMax := 0
	const n = 2_000
	for range n {
		v := d.Draw(r)
		require.True(t, 0 <= v && v <= 3, "draw %d outside [0, 3]", v)
		if v == 3 {
			atMax++
		}
	}
	// each further unit with probability 50/51: P(3) = (50/51)^3 = 0.94
	assert.InDelta(t, math.Pow(50.0/51, 3), float64(atMax)/n, 0.03, "draws at max")
	for range 100 {
		require.Equal(t, 2, Geometric{Min: 2, Mean: 5, Max: 2}.Draw(r), "min == max")
	}
}
