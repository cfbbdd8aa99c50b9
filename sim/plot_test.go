package sim

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlots draws every plot of a small sweep and checks that each PNG
// decodes to the size asked for and each SVG is an SVG.
func TestPlots(t *testing.T) {
	bases := []Setting{mustSetting(t, "claude-code"), mustSetting(t, "seed")}
	sw, err := ParseSweep("workload.faults.overloaded=0,0.05")
	if err != nil {
		t.Fatal(err)
	}
	settings, err := Grid(bases, []Sweep{sw})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Config{Settings: settings, Episodes: 20, Seed: 4, Prices: DefaultPrices})
	if err != nil {
		t.Fatal(err)
	}
	samples, err := CompareSamples(res, []int{0, 1})
	if err != nil || len(samples) == 0 {
		t.Fatalf("samples: %d, %v", len(samples), err)
	}
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
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	if len(files) != 10 {
		t.Fatalf("files %v, want a PNG and an SVG of each of 5 plots", files)
	}
	for _, f := range files {
		path := filepath.Join(dir, f)
		if strings.HasSuffix(f, ".svg") {
			b, err := os.ReadFile(path)
			if err != nil || !strings.Contains(string(b[:min(len(b), 200)]), "<svg") {
				t.Errorf("%s is not an SVG: %v", f, err)
			}
			continue
		}
		r, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(r)
		r.Close()
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 250 {
			t.Errorf("%s is %dx%d pixels", f, b.Dx(), b.Dy())
		}
	}
	if _, err := PlotSweep(dir, res, 3, []Sweep{sw}); err == nil {
		t.Error("a sweep plot with the wrong number of bases drew")
	}
}

func TestCountTicks(t *testing.T) {
	for _, tk := range (countTicks{log: true}).Ticks(20_000, 3_000_000) {
		if tk.Label != "" && strings.ContainsAny(tk.Label, "e") {
			t.Errorf("label %q", tk.Label)
		}
	}
	labels := map[string]bool{}
	for _, tk := range (countTicks{}).Ticks(0, 200_000) {
		labels[tk.Label] = true
	}
	if !labels["100k"] || !labels["200k"] {
		t.Errorf("labels %v, want 100k and 200k", labels)
	}
}
