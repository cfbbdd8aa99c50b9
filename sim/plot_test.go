package sim

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlots draws every plot of a small sweep and checks that each PNG
// decodes to the size asked for and each SVG is an SVG.
func TestPlots(t *testing.T) {
	bases := []Setting{mustSetting(t, "claude-code"), mustSetting(t, "seed")}
	sw, err := ParseSweep("workload.faults.overloaded=0,0.05")
	require.NoError(t, err)
	settings, err := Grid(bases, []Sweep{sw})
	require.NoError(t, err)
	res, err := Run(context.Background(), Config{Settings: settings, Episodes: 20, Seed: 4, Prices: DefaultPrices})
	require.NoError(t, err)
	samples, err := CompareSamples(res, []int{0, 1})
	require.NoError(t, err, "samples")
	require.NotEmpty(t, samples, "samples")
	dir := t.TempDir()
	var files []string
	for _, plot := range []func() ([]string, error){
		func() ([]string, error) {
			return PlotContext(dir, "context", "context", samples, res.Labels()[:2], []bool{true, false})
		},
		func() ([]string, error) { return PlotTokens(dir, res) },
		func() ([]string, error) { return PlotTerminals(dir, res) },
		func() ([]string, error) { return PlotSweep(dir, res, len(bases), []Sweep{sw}) },
		func() ([]string, error) { return PlotPareto(dir, res) },
	} {
		fs, err := plot()
		require.NoError(t, err)
		files = append(files, fs...)
	}
	require.Len(t, files, 10, "want a PNG and an SVG of each of 5 plots")
	for _, f := range files {
		path := filepath.Join(dir, f)
		if strings.HasSuffix(f, ".svg") {
			b, err := os.ReadFile(path)
			if assert.NoError(t, err, f) {
				assert.Contains(t, string(b[:min(len(b), 200)]), "<svg", "%s is not an SVG", f)
			}
			continue
		}
		r, err := os.Open(path)
		require.NoError(t, err)
		img, err := png.Decode(r)
		r.Close()
		if !assert.NoError(t, err, f) {
			continue
		}
		b := img.Bounds()
		assert.GreaterOrEqual(t, b.Dx(), 600, "%s is %dx%d pixels", f, b.Dx(), b.Dy())
		assert.GreaterOrEqual(t, b.Dy(), 250, "%s is %dx%d pixels", f, b.Dx(), b.Dy())
	}
	_, err = PlotSweep(dir, res, 3, []Sweep{sw})
	assert.Error(t, err, "a sweep plot with the wrong number of bases drew")
}

func TestCountTicks(t *testing.T) {
	for _, tk := range (countTicks{log: true}).Ticks(20_000, 3_000_000) {
		assert.NotContains(t, tk.Label, "e", "a log tick's label")
	}
	labels := map[string]bool{}
	for _, tk := range (countTicks{}).Ticks(0, 200_000) {
		labels[tk.Label] = true
	}
	assert.True(t, labels["100k"], "labels %v, want 100k and 200k", labels)
	assert.True(t, labels["200k"], "labels %v, want 100k and 200k", labels)
}
