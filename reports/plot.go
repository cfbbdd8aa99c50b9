package reports

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/loopsim/loopsim/sim"
)

// maxPlottedSettings caps the settings a comparison draws plots for.
const maxPlottedSettings = 4

// ecdfPoints caps the points of one ECDF curve: a million episodes draw
// as fast as a thousand.
const ecdfPoints = 2000

var (
	baseColor  = color.RGBA{31, 119, 180, 255} // blue
	candColor  = color.RGBA{255, 127, 14, 255} // orange
	worseColor = color.RGBA{214, 39, 40, 255}
	betterCol  = color.RGBA{44, 160, 44, 255}
	sameColor  = color.RGBA{127, 127, 127, 255}
)

// Plot draws the comparison's plots into dir, as PNG and SVG, for the
// first four settings: the forest plot of every metric's delta, the
// terminal shares with their intervals, ECDF overlays of tokens and cost
// per episode, and (paired records) the distribution of the paired
// differences. It returns the PNG figures.
func (c *Comparison) Plot(dir string) ([]Figure, error) {
	var figs []Figure
	for i := range c.Settings[:min(len(c.Settings), maxPlottedSettings)] {
		sc := &c.Settings[i]
		suffix := ""
		if len(c.Settings) > 1 {
			suffix = fmt.Sprintf("-%d", i+1)
		}
		type fig struct {
			name    string
			draw    func(string) error
			caption string
		}
		list := []fig{
			{"forest" + suffix, sc.plotForest, sc.Label + ": every metric's delta (candidate minus base) with its 95% interval: rates in percentage points, " +
				"means in percent of the base mean. Red: worse, green: better, grey: not significant or no better direction."},
			{"terminals" + suffix, sc.plotEnds, sc.Label + ": the share of episodes ending in each terminal, base and candidate, with 95% Wilson intervals."},
			{"ecdf" + suffix, sc.plotECDF, sc.Label + ": empirical distribution functions of tokens and cost per episode, base against candidate (log scale)."},
		}
		if sc.Paired {
			list = append(list, fig{"paired-diff" + suffix, sc.plotDiffs, sc.Label +
				": the distribution of the paired differences (candidate minus base, same episode seed) of tokens and cost, over the episodes that differ and within the middle 96% of the differences; the titles count the episodes unchanged and beyond the range."})
		}
		for _, f := range list {
			if err := f.draw(filepath.Join(dir, f.name)); err != nil {
				return nil, fmt.Errorf("plot %s: %w", f.name, err)
			}
			figs = append(figs, Figure{File: f.name + ".png", Caption: f.caption})
		}
	}
	return figs, nil
}

// save writes p as base.png and base.svg.
func save(p *plot.Plot, w, h vg.Length, base string) error {
	for _, ext := range []string{".png", ".svg"} {
		if err := p.Save(w, h, base+ext); err != nil {
			return err
		}
	}
	return nil
}

// saveTiles writes plots side by side as base.png and base.svg.
func saveTiles(plots []*plot.Plot, w, h vg.Length, base string) error {
	_, err := sim.SaveFigure(filepath.Dir(base), filepath.Base(base), w, h, func(dc draw.Canvas) {
		tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6),
			PadRight: vg.Points(10), PadX: vg.Points(18)}
		for i, p := range plots {
			p.Draw(tiles.At(dc, i, 0))
		}
	})
	return err
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.Legend.Top = true
	return p
}

// forestValue is a row's delta and interval on the forest plot's axis:
// percentage points for a rate, percent of the base mean for a mean.
func forestValue(r *MetricRow) (float64, sim.Interval, bool) {
	if r.Kind == KindRate {
		return 100 * r.Delta, sim.Interval{Lo: 100 * r.DeltaCI.Lo, Hi: 100 * r.DeltaCI.Hi}, true
	}
	if r.Base == 0 {
		return 0, sim.Interval{}, false
	}
	rel, ci := r.Relative()
	return 100 * rel, sim.Interval{Lo: 100 * ci.Lo, Hi: 100 * ci.Hi}, true
}

func (sc *SettingComparison) plotForest(base string) error {
	var plots []*plot.Plot
	most := 0
	for _, kind := range []string{KindRate, KindMean} {
		var rows []*MetricRow
		for i := range sc.Rows {
			if _, _, ok := forestValue(&sc.Rows[i]); ok && sc.Rows[i].Kind == kind {
				rows = append(rows, &sc.Rows[i])
			}
		}
		most = max(most, len(rows))
		title, axis := "Rates: delta with 95% interval", "candidate minus base, percentage points"
		if kind == KindMean {
			title, axis = "Means: delta with 95% interval", "candidate minus base, % of the base mean"
		}
		p := newPlot(title, axis, "")
		names := make([]string, len(rows))
		for i, r := range rows {
			y := float64(len(rows) - 1 - i) // first row on top
			d, ci, _ := forestValue(r)
			names[len(rows)-1-i] = rowName(r)
			col := sameColor
			switch r.Verdict {
			case Worse:
				col = worseColor
			case Better:
				col = betterCol
			}
			if err := addPoint(p, d, y, ci, col); err != nil {
				return err
			}
		}
		line, err := plotter.NewLine(plotter.XYs{{X: 0, Y: -0.5}, {X: 0, Y: float64(len(rows)) - 0.5}})
		if err != nil {
			return err
		}
		line.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(line)
		p.NominalY(names...)
		plots = append(plots, p)
	}
	return saveTiles(plots, 14*vg.Inch, vg.Length(1.2+0.3*float64(most))*vg.Inch, base)
}

// addPoint draws a point at (x, y) with a horizontal interval.
func addPoint(p *plot.Plot, x, y float64, ci sim.Interval, col color.Color) error {
	pts := errPoints{{x, y, x - ci.Lo, ci.Hi - x}}
	bars, err := plotter.NewXErrorBars(pts)
	if err != nil {
		return err
	}
	bars.Color, bars.Width = col, vg.Points(1.5)
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.Color, sc.Shape, sc.Radius = col, draw.CircleGlyph{}, vg.Points(3)
	p.Add(bars, sc)
	return nil
}

// errPoints are points with asymmetric horizontal errors.
type errPoints []struct{ x, y, lo, hi float64 }

func (e errPoints) Len() int                        { return len(e) }
func (e errPoints) XY(i int) (float64, float64)     { return e[i].x, e[i].y }
func (e errPoints) XError(i int) (float64, float64) { return e[i].lo, e[i].hi }

func (sc *SettingComparison) plotEnds(base string) error {
	var rows []*MetricRow
	for i := range sc.Rows {
		if sc.Rows[i].Kind == KindRate {
			rows = append(rows, &sc.Rows[i])
		}
	}
	p := newPlot("Share of episodes by terminal, 95% Wilson intervals", "% of episodes (log scale)", "")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	names := make([]string, len(rows))
	floor := 0.01 // percent: a zero share is drawn at the axis' floor
	for i, r := range rows {
		y := float64(len(rows) - 1 - i)
		names[len(rows)-1-i] = rowName(r)
		for k, side := range []struct {
			v   float64
			ci  sim.Interval
			col color.Color
			dy  float64
		}{{r.Base, r.BaseCI, baseColor, 0.15}, {r.Candidate, r.CandidateCI, candColor, -0.15}} {
			v, lo, hi := max(100*side.v, floor), max(100*side.ci.Lo, floor), max(100*side.ci.Hi, floor)
			if err := addPoint(p, v, y+side.dy, sim.Interval{Lo: lo, Hi: hi}, side.col); err != nil {
				return err
			}
			if i == 0 {
				sw, _ := plotter.NewScatter(plotter.XYs{{X: v, Y: y}})
				sw.Color, sw.Shape = side.col, draw.CircleGlyph{}
				p.Legend.Add([]string{"base", "candidate"}[k], sw)
			}
		}
	}
	p.NominalY(names...)
	p.X.Min, p.X.Max = floor, 100
	return save(p, 8*vg.Inch, vg.Length(1.4+0.4*float64(len(rows)))*vg.Inch, base)
}

// ecdf is the empirical distribution of x, at most ecdfPoints points,
// values below floor raised to it (for a log axis).
func ecdf(x []float64, floor float64) plotter.XYs {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	step := max(1, n/ecdfPoints)
	var out plotter.XYs
	for i := 0; i < n; i += step {
		out = append(out, plotter.XY{X: max(s[i], floor), Y: float64(i+1) / float64(n)})
	}
	if n > 0 && (n-1)%step != 0 {
		out = append(out, plotter.XY{X: max(s[n-1], floor), Y: 1})
	}
	return out
}

func (sc *SettingComparison) plotECDF(base string) error {
	var plots []*plot.Plot
	for _, m := range []sim.Metric{sim.Tokens, sim.CostMicroUSD} {
		scale, unit := 1.0, "tokens per episode"
		if m == sim.CostMicroUSD {
			scale, unit = 1e-6, "dollars per episode"
		}
		p := newPlot("ECDF of "+m.String()+" per episode", unit+" (log scale)", "share of episodes at or below")
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Legend.Left = true
		for k, rows := range [][]Row{sc.base, sc.cand} {
			x := values(rows, m)
			lo := math.Inf(1)
			for i := range x {
				x[i] *= scale
				if x[i] > 0 {
					lo = min(lo, x[i])
				}
			}
			if math.IsInf(lo, 1) {
				lo = scale
			}
			line, err := plotter.NewLine(ecdf(x, lo))
			if err != nil {
				return err
			}
			line.Color, line.Width = []color.Color{baseColor, candColor}[k], vg.Points(1.5)
			p.Add(line)
			p.Legend.Add([]string{"base", "candidate"}[k], line)
		}
		plots = append(plots, p)
	}
	return saveTiles(plots, 12*vg.Inch, 4.5*vg.Inch, base)
}

func (sc *SettingComparison) plotDiffs(base string) error {
	var plots []*plot.Plot
	for _, m := range []sim.Metric{sim.Tokens, sim.CostMicroUSD} {
		scale, unit := 1.0, "tokens"
		if m == sim.CostMicroUSD {
			scale, unit = 1e-6, "dollars"
		}
		var d plotter.Values
		same := 0
		for j := range sc.base {
			x := float64(sc.cand[j].Value(m)-sc.base[j].Value(m)) * scale
			if x == 0 {
				same++
				continue
			}
			d = append(d, x)
		}
		// The tails are long: the histogram spans the middle 96% of the
		// differences and the title counts the rest.
		outside := 0
		if len(d) > 50 {
			sorted := slices.Clone(d)
			slices.Sort(sorted)
			lo, hi := sorted[len(sorted)*2/100], sorted[len(sorted)-1-len(sorted)*2/100]
			kept := d[:0]
			for _, x := range d {
				if x < lo || x > hi {
					outside++
					continue
				}
				kept = append(kept, x)
			}
			d = kept
		}
		p := newPlot(fmt.Sprintf("%s, paired differences\n%s of %s episodes unchanged, %s beyond the range drawn", m.String(),
			thousands(same), thousands(len(sc.base)), thousands(outside)), "candidate minus base, "+unit, "episodes")
		if len(d) > 0 {
			h, err := plotter.NewHist(d, 40)
			if err != nil {
				return err
			}
			h.FillColor = candColor
			p.Add(h)
		}
		plots = append(plots, p)
	}
	return saveTiles(plots, 12*vg.Inch, 4.5*vg.Inch, base)
}
