package sim

import (
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// maxCurves caps the settings drawn in one histogram.
const maxCurves = 8

// binsPerDecade is the histogram's resolution on its log scale.
const binsPerDecade = 8

// minDrawnTokens: episodes under this many tokens (no successful
// request) are left out of the histogram, whose log scale would spend
// most of its width on them.
const minDrawnTokens = 1_000

// PlotTokens draws, for each setting (the first eight), the distribution
// of tokens per episode on a log scale as the share of episodes per bin,
// and writes dir/tokens.png and .svg.
func PlotTokens(dir string, r *Result) ([]string, error) {
	settings := r.Settings[:min(len(r.Settings), maxCurves)]
	labels := r.Labels()
	lo, hi := math.Inf(1), 0.0
	for _, s := range settings {
		for _, b := range s.Aggregate.Hist[Tokens].Buckets() {
			if b.Lo >= minDrawnTokens {
				lo, hi = min(lo, float64(b.Lo)), max(hi, float64(b.Hi+1))
			}
		}
	}
	if hi == 0 {
		return nil, nil
	}
	first := math.Floor(math.Log10(lo) * binsPerDecade)
	last := math.Ceil(math.Log10(hi)*binsPerDecade) + 1
	edge := func(b float64) float64 { return math.Pow(10, b/binsPerDecade) }

	p := newPlot("Tokens per episode (input + output; episodes under 1k tokens not drawn)", "tokens per episode (log scale)", "share of episodes (%)")
	p.X.Scale = logScale{}
	p.X.Tick.Marker = countTicks{log: true}
	p.X.Min, p.X.Max = edge(first), edge(last)
	p.Y.Min = 0
	p.Y.Tick.Marker = countTicks{suffix: "%"}
	p.Legend.Top = true
	for i, s := range settings {
		share := make([]float64, int(last-first))
		n := float64(s.Aggregate.Hist[Tokens].Count())
		for _, b := range s.Aggregate.Hist[Tokens].Buckets() {
			if b.Lo < minDrawnTokens {
				continue
			}
			// spread the bucket over the bins it overlaps, uniformly on
			// the log scale, so that bins do not alias the buckets
			blo, bhi := math.Log10(float64(b.Lo))*binsPerDecade, math.Log10(float64(b.Hi+1))*binsPerDecade
			for k := int(math.Floor(blo)); float64(k) < bhi; k++ {
				overlap := min(bhi, float64(k+1)) - max(blo, float64(k))
				if i := k - int(first); i >= 0 && i < len(share) && overlap > 0 {
					share[i] += 100 * float64(b.Count) / n * overlap / (bhi - blo)
				}
			}
		}
		var xys plotter.XYs
		for k, v := range share {
			x0, x1 := edge(first+float64(k)), edge(first+float64(k+1))
			xys = append(xys, plotter.XY{X: x0, Y: v}, plotter.XY{X: x1, Y: v})
		}
		ln, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		ln.Color, ln.Width = colorOf(i), vg.Points(1.5)
		p.Add(ln)
		p.Legend.Add(labels[i], ln)
	}
	return saveFigure(dir, "tokens", vg.Inch*10, vg.Inch*5, func(dc draw.Canvas) { p.Draw(dc) })
}

// logScale is a log10 scale for positive data.
type logScale struct{}

// Normalize implements plot.Normalizer.
func (logScale) Normalize(lo, hi, x float64) float64 {
	l, h := math.Log10(lo), math.Log10(hi)
	return (math.Log10(max(x, lo)) - l) / (h - l)
}
