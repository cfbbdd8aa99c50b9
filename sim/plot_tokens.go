package sim

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// maxTokenTiles caps the settings drawn in the tokens figure, one tile
// each.
const maxTokenTiles = 24

// tokenCols is the tokens figure's number of columns.
const tokenCols = 3

// binsPerDecade is the histogram's resolution on its log scale.
const binsPerDecade = 8

// minDrawnTokens: episodes under this many tokens (no successful
// request) are left out of the histogram, whose log scale would spend
// most of its width on them.
const minDrawnTokens = 1_000

// referenceColor draws the first setting behind the others' tiles.
var referenceColor = color.Gray{Y: 190}

// tokenPanel is one setting's tile of the tokens figure.
type tokenPanel struct {
	label        string
	median, mean float64
	share        []float64 // per bin, % of the setting's episodes
	color        color.Color
	reference    []float64 // the first setting's shares; nil in its own tile
}

// PlotTokens draws, for each setting (the first twenty-four), the
// distribution of tokens per episode on a log scale as the share of
// episodes per bin, in a tile of its own (small multiples on shared
// axes, the first setting in grey behind the others) with its median
// drawn and written; it writes dir/tokens.png and .svg.
func PlotTokens(dir string, r *Result) ([]string, error) {
	panels, first, last := tokenPanels(r)
	if panels == nil {
		return nil, nil
	}
	edge := func(b float64) float64 { return math.Pow(10, b/binsPerDecade) }
	top := 0.0
	for _, pn := range panels {
		for _, v := range pn.share {
			top = max(top, v)
		}
	}
	xmin, xmax, ymax := edge(first), edge(last), top*1.25
	var plots []*plot.Plot
	for _, pn := range panels {
		p, err := tokenPlot(pn, first, edge, xmin, xmax, ymax)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	cols := min(len(plots), tokenCols)
	rows := (len(plots) + cols - 1) / cols
	title := "Tokens per episode (input + output; episodes under 1k tokens not drawn; the dashed line is the median of all episodes)"
	if len(panels) > 1 {
		title += "; grey: " + panels[0].label
	}
	if len(r.Settings) > len(panels) {
		title += fmt.Sprintf("; the first %d of %d settings", len(panels), len(r.Settings))
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadTop: vg.Points(24), PadBottom: vg.Points(4), PadLeft: vg.Points(4),
		PadRight: vg.Points(10), PadX: vg.Points(12), PadY: vg.Points(10)}
	w := vg.Inch * vg.Length(1+4.5*float64(cols))
	h := vg.Points(24) + vg.Inch*3*vg.Length(rows)
	return SaveFigure(dir, "tokens", w, h, func(dc draw.Canvas) {
		drawFigureTitle(dc, w, h, title)
		for i, p := range plots {
			p.Draw(tiles.At(dc, i%cols, i/cols))
		}
	})
}

// tokenPanels are the tiles of the tokens figure, one per setting (the
// first maxTokenTiles), and the range of log-scale bins they share; nil
// when no episode reached minDrawnTokens.
func tokenPanels(r *Result) (panels []tokenPanel, first, last float64) {
	settings := r.Settings[:min(len(r.Settings), maxTokenTiles)]
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
		return nil, 0, 0
	}
	first = math.Floor(math.Log10(lo) * binsPerDecade)
	last = math.Ceil(math.Log10(hi)*binsPerDecade) + 1
	panels = make([]tokenPanel, len(settings))
	for i, s := range settings {
		a := s.Aggregate
		panels[i] = tokenPanel{label: labels[i], median: float64(a.Quantile(Tokens, 0.5)), mean: a.Mean(Tokens),
			share: tokenShares(&a.Hist[Tokens], first, last), color: colorOf(i)}
		if i > 0 {
			panels[i].reference = panels[0].share
		}
	}
	return panels, first, last
}

// tokenPlot is one setting's tile.
func tokenPlot(pn tokenPanel, first float64, edge func(float64) float64, xmin, xmax, ymax float64) (*plot.Plot, error) {
	p := newPlot(fmt.Sprintf("%s\nmedian %s, mean %s", pn.label, humanCount(pn.median), humanCount(pn.mean)),
		"tokens per episode (log scale)", "% of episodes")
	p.X.Scale = logScale{}
	p.X.Tick.Marker = countTicks{log: true, decades: true}
	p.X.Min, p.X.Max = xmin, xmax
	p.Y.Min, p.Y.Max = 0, ymax
	p.Y.Tick.Marker = countTicks{suffix: "%"}
	steps := func(share []float64) plotter.XYs {
		var xys plotter.XYs
		for k, v := range share {
			xys = append(xys, plotter.XY{X: edge(first + float64(k)), Y: v}, plotter.XY{X: edge(first + float64(k+1)), Y: v})
		}
		return xys
	}
	if pn.reference != nil {
		ref, err := plotter.NewLine(steps(pn.reference))
		if err != nil {
			return nil, err
		}
		ref.Color, ref.Width = referenceColor, vg.Points(1.5)
		p.Add(ref)
	}
	ln, err := plotter.NewLine(steps(pn.share))
	if err != nil {
		return nil, err
	}
	ln.Color, ln.Width = pn.color, vg.Points(1.5)
	p.Add(ln)
	if pn.median >= xmin && pn.median <= xmax {
		med, err := plotter.NewLine(plotter.XYs{{X: pn.median, Y: 0}, {X: pn.median, Y: ymax}})
		if err != nil {
			return nil, err
		}
		med.Color, med.Width, med.Dashes = color.Black, vg.Points(1), []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(med)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: pn.median, Y: ymax * 0.93}},
			Labels: []string{"median " + humanCount(pn.median)}})
		if err != nil {
			return nil, err
		}
		lb.Offset = vg.Point{X: vg.Points(3)}
		for i := range lb.TextStyle {
			lb.TextStyle[i].Font.Size = vg.Points(8)
		}
		p.Add(lb)
	}
	return p, nil
}

// tokenShares spreads a histogram's buckets at or above minDrawnTokens
// over the log-scale bins [first, last), uniformly on the log scale so
// that bins do not alias the buckets, as % of all its episodes.
func tokenShares(h *Histogram, first, last float64) []float64 {
	share := make([]float64, int(last-first))
	n := float64(h.Count())
	for _, b := range h.Buckets() {
		if b.Lo < minDrawnTokens {
			continue
		}
		blo, bhi := math.Log10(float64(b.Lo))*binsPerDecade, math.Log10(float64(b.Hi+1))*binsPerDecade
		for k := int(math.Floor(blo)); float64(k) < bhi; k++ {
			overlap := min(bhi, float64(k+1)) - max(blo, float64(k))
			if i := k - int(first); i >= 0 && i < len(share) && overlap > 0 {
				share[i] += 100 * float64(b.Count) / n * overlap / (bhi - blo)
			}
		}
	}
	return share
}

// logScale is a log10 scale for positive data.
type logScale struct{}

// Normalize implements plot.Normalizer.
func (logScale) Normalize(lo, hi, x float64) float64 {
	l, h := math.Log10(lo), math.Log10(hi)
	return (math.Log10(max(x, lo)) - l) / (h - l)
}
