package reports

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/sim"
)

// The reference values below come from two kinds of source, named at
// each: published worked examples, and SciPy 1.10.1 / statsmodels 0.13.5
// (Debian's python3-scipy and python3-statsmodels) run on the same
// inputs, the calls quoted.

func TestWilson(t *testing.T) {
	// Newcombe (1998), "Two-sided confidence intervals for the single
	// proportion: comparison of seven methods", Stat Med 17:857-872,
	// Table II, method 3 (score): 81/263 0.2553-0.3662, 15/148
	// 0.0624-0.1605, 0/20 0.0000-0.1611, 1/29 0.0061-0.1718. More digits
	// and 29/29 from statsmodels proportion_confint(k, n, alpha=0.05,
	// method="wilson").
	cases := []struct {
		k, n   int
		lo, hi float64
	}{
		{81, 263, 0.2552885199, 0.3662095770},
		{15, 148, 0.0623863995, 0.1604872417},
		{0, 20, 0, 0.1611251581},
		{1, 29, 0.0061132143, 0.1717552188},
		{29, 29, 0.8830302015, 1},
	}
	for _, c := range cases {
		got := sim.Wilson(c.k, c.n, 0.95)
		assert.InDelta(t, c.lo, got.Lo, 1e-9, "%d/%d", c.k, c.n)
		assert.InDelta(t, c.hi, got.Hi, 1e-9, "%d/%d", c.k, c.n)
	}
	assert.Equal(t, sim.Interval{Lo: 0, Hi: 1}, sim.Wilson(0, 0, 0.95))
}

func TestNewcombeDiff(t *testing.T) {
	// Fagerland, Lydersen, Laake, "Statistical Analysis of Contingency
	// Tables" (2017), ch. 4, the Perondi et al. (2004) trial, 7/34
	// against 1/34: Newcombe hybrid score estimate 0.1765, 95% CI 0.0189
	// to 0.3404 (the contingencytables R package's test-ch4.R checks the
	// same figures).
	got := sim.NewcombeDiff(1, 34, 7, 34, 0.95)
	assert.InDelta(t, 0.0189, got.Lo, 5e-5)
	assert.InDelta(t, 0.3404, got.Hi, 5e-5)
	// Newcombe (1998), "Interval estimation for the difference between
	// independent proportions", Stat Med 17:873-890, Table II example
	// 56/70 - 48/80, method 10: 0.0524 to 0.3339.
	got = sim.NewcombeDiff(48, 80, 56, 70, 0.95)
	assert.InDelta(t, 0.0524, got.Lo, 5e-5)
	assert.InDelta(t, 0.3339, got.Hi, 5e-5)
}

func TestNewcombePaired(t *testing.T) {
	// Fagerland et al. (2017), ch. 8, the Cavo et al. (2012) table
	// [[59, 6], [16, 80]]: Newcombe square-and-add estimate -0.0621, 95%
	// CI -0.1186 to -0.0046 for row minus column (contingencytables
	// test-ch8.R). Here the row is the base and the column the
	// candidate, so the difference and the interval change sign.
	got := NewcombePaired(59, 6, 16, 161, 0.95)
	assert.InDelta(t, 0.0046, got.Lo, 5e-5)
	assert.InDelta(t, 0.1186, got.Hi, 5e-5)
	assert.True(t, got.Contains(10.0/161))
}

func TestMcNemarExact(t *testing.T) {
	// SciPy: binomtest(6, 22, 0.5).pvalue = 0.0524787903, and
	// statsmodels mcnemar([[59, 6], [16, 80]], exact=True) the same;
	// binomtest(3, 15, 0.5).pvalue = 0.03515625.
	assert.InDelta(t, 0.0524787903, sim.McNemarExact(6, 16), 1e-9)
	assert.InDelta(t, 0.0524787903, sim.McNemarExact(16, 6), 1e-9)
	assert.InDelta(t, 0.03515625, sim.McNemarExact(12, 3), 1e-9)
	assert.Equal(t, 1.0, sim.McNemarExact(0, 0))
	assert.Equal(t, 1.0, sim.McNemarExact(4, 4))
}

func TestTwoProportionP(t *testing.T) {
	// Fagerland et al. (2017), ch. 4 (contingencytables test-ch4.R):
	// Pearson chi-squared test of [[3, 1], [1, 3]], P = 0.15730;
	// statsmodels proportions_ztest([30, 45], [1000, 1000]) p =
	// 0.0774848651.
	assert.InDelta(t, 0.15730, sim.TwoProportionP(3, 4, 1, 4), 5e-6)
	assert.InDelta(t, 0.0774848651, sim.TwoProportionP(30, 1000, 45, 1000), 1e-9)
}

func TestWilcoxonSignedRank(t *testing.T) {
	// The depression-scale example of Hollander and Wolfe (1973, p. 29),
	// as in R's ?wilcox.test, differences x - y; SciPy
	// wilcoxon(d, method="exact"): statistic 5, p = 0.0390625.
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	got := WilcoxonSignedRank(d)
	assert.InDelta(t, 0.0390625, got.P, 1e-12)
	assert.Equal(t, 9, got.N)
	assert.InDelta(t, (40.0-5)/45, got.Effect, 1e-12) // W+ = 40, W- = 5

	// Ties and zeros, normal approximation: d_i = (37i mod 23) - (11i
	// mod 19), i < 200; SciPy wilcoxon(d, zero_method="wilcox",
	// correction=False, method="approx"): statistic 6864, p =
	// 0.002583488636, 191 non-zero.
	d = nil
	for i := range 200 {
		d = append(d, float64((i*37)%23-(i*11)%19))
	}
	got = WilcoxonSignedRank(d)
	assert.InDelta(t, 0.002583488636, got.P, 1e-10)
	assert.Equal(t, 191, got.N)

	assert.Equal(t, RankTest{P: 1}, WilcoxonSignedRank([]float64{0, 0, 0}))
}

func TestMannWhitney(t *testing.T) {
	// SciPy mannwhitneyu(b, a, method="exact"): U = 46, p = 0.0400932401.
	a := []float64{1.1, 2.3, 0.7, 4.5, 3.3, 2.2, 5.1}
	b := []float64{3.4, 4.1, 6.0, 5.5, 2.9, 7.2, 4.8, 3.9}
	got := MannWhitney(a, b)
	assert.InDelta(t, 0.0400932401, got.P, 1e-9)
	assert.InDelta(t, 2*46.0/56-1, got.Effect, 1e-12)

	// Ties, normal approximation: a_i = 13i mod 17 (i < 300), b_i = 7i
	// mod 19 + 1 (i < 250); SciPy mannwhitneyu(b, a,
	// method="asymptotic", use_continuity=True): U = 45209.5, p =
	// 0.000031802095.
	a, b = nil, nil
	for i := range 300 {
		a = append(a, float64((i*13)%17))
	}
	for i := range 250 {
		b = append(b, float64((i*7)%19+1))
	}
	got = MannWhitney(a, b)
	assert.InDelta(t, 0.000031802095, got.P, 1e-11)
	assert.InDelta(t, 2*45209.5/75000-1, got.Effect, 1e-12)

	assert.Equal(t, 1.0, MannWhitney([]float64{2, 2}, []float64{2, 2, 2}).P)
}

func TestHolm(t *testing.T) {
	// statsmodels multipletests([0.01, 0.04, 0.03, 0.005, 0.2],
	// method="holm")[1] = [0.04, 0.09, 0.09, 0.025, 0.2].
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005, 0.2})
	want := []float64{0.04, 0.09, 0.09, 0.025, 0.2}
	for i := range want {
		assert.InDelta(t, want[i], got[i], 1e-12, "p[%d]", i)
	}
	assert.Empty(t, Holm(nil))
}

func TestMeanIntervals(t *testing.T) {
	// y_i = (29i mod 31) - 10, i < 50; SciPy t.interval(0.95, 49,
	// loc=mean, scale=sem(y)) = (2.8089074542, 8.1510925458).
	var y []float64
	for i := range 50 {
		y = append(y, float64((i*29)%31-10))
	}
	mean, ci := PairedMeanInterval(y, 0.95)
	assert.InDelta(t, 5.48, mean, 1e-12)
	// gonum's Student's t quantile agrees with SciPy's to about 1e-9.
	assert.InDelta(t, 2.8089074542, ci.Lo, 1e-8)
	assert.InDelta(t, 8.1510925458, ci.Hi, 1e-8)

	// Welch: y1_i = 29i mod 31 (i < 40), y2_i = 17i mod 23 + 3 (i < 60);
	// SciPy ttest_ind(y2, y1, equal_var=False).pvalue = 0.285775339153;
	// the interval from t.ppf(0.975, Welch-Satterthwaite df):
	// (-5.1628006748, 1.5461340082).
	var y1, y2 []float64
	for i := range 40 {
		y1 = append(y1, float64((i*29)%31))
	}
	for i := range 60 {
		y2 = append(y2, float64((i*17)%23+3))
	}
	m1, v1 := MeanVariance(y1)
	m2, v2 := MeanVariance(y2)
	assert.InDelta(t, 0.285775339153, sim.WelchP(m1, v1, 40, m2, v2, 60), 1e-10)
	ci = sim.WelchInterval(m1, v1, 40, m2, v2, 60, 0.95)
	assert.InDelta(t, -5.1628006748, ci.Lo, 1e-8)
	assert.InDelta(t, 1.5461340082, ci.Hi, 1e-8)
}
