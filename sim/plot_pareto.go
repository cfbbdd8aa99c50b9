package sim

import (
	"cmp"
	"image/color"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotPareto draws each setting as a point, mean tokens per episode
// against failure rate, with 95% intervals on both axes (t, Wilson), the
// Pareto front (settings no other beats on both) joined and labelled, and
// the settings off the front that no setting beating them beats
// significantly ([Result.ParetoUncertain]) marked by squares; it writes
// dir/pareto.png and .svg.
func PlotPareto(dir string, r *Result) ([]string, error) {
	w, h := paretoWidth, paretoHeight
	front := r.ParetoFront()
	labels := r.Labels()
	var all, onFront plotter.XYs
	for i, s := range r.Settings {
		xy := plotter.XY{X: s.Aggregate.Mean(Tokens), Y: 100 * s.Aggregate.FailureRate()}
		all = append(all, xy)
		if front[i] {
			onFront = append(onFront, xy)
		}
	}
	slices.SortFunc(onFront, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
	lo, hi, top := all[0].X, all[0].X, 0.0
	for _, s := range r.Settings { // the intervals fit in the frame
		tc, fc := s.Aggregate.MeanInterval(Tokens), s.Aggregate.FailureInterval()
		lo, hi, top = min(lo, max(tc.Lo, 0)), max(hi, tc.Hi), max(top, 100*fc.Hi)
	}
	span := max(hi-lo, hi*0.1)
	xmin, xmax := max(lo-0.1*span, 0), hi+0.45*span // room for labels on the right
	ymax := max(top*1.1, 1)

	p := newPlot("Tokens against failures (lower left is better)", "mean tokens per episode", "failure rate (% of episodes)")
	p.X.Tick.Marker = countTicks{}
	p.Y.Tick.Marker = countTicks{suffix: "%"}
	p.Y.Min = 0
	var errs xyErrPoints
	for _, s := range r.Settings {
		a := s.Aggregate
		x, y := a.Mean(Tokens), 100*a.FailureRate()
		tc, fc := a.MeanInterval(Tokens), a.FailureInterval()
		errs = append(errs, struct{ x, y, xlo, xhi, ylo, yhi float64 }{x, y, x - max(tc.Lo, 0), tc.Hi - x, y - 100*fc.Lo, 100*fc.Hi - y})
	}
	xb, err := plotter.NewXErrorBars(errs)
	if err != nil {
		return nil, err
	}
	yb, err := plotter.NewYErrorBars(errs)
	if err != nil {
		return nil, err
	}
	barColor := color.Gray{Y: 170}
	xb.Color, yb.Color = barColor, barColor
	p.Add(xb, yb)
	pts, err := plotter.NewScatter(all)
	if err != nil {
		return nil, err
	}
	pts.GlyphStyle = draw.GlyphStyle{Shape: draw.CircleGlyph{}, Color: colorOf(0), Radius: vg.Points(3)}
	p.Add(pts)
	p.Legend.Add("setting", pts)
	if len(onFront) > 1 {
		ln, err := plotter.NewLine(onFront)
		if err != nil {
			return nil, err
		}
		ln.Color, ln.Width, ln.Dashes = colorOf(3), vg.Points(1), []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(ln)
		p.Legend.Add("Pareto front", ln)
	}
	fp, err := plotter.NewScatter(onFront)
	if err != nil {
		return nil, err
	}
	fp.GlyphStyle = draw.GlyphStyle{Shape: draw.RingGlyph{}, Color: colorOf(3), Radius: vg.Points(5)}
	p.Add(fp)
	var unsure plotter.XYs
	for i, u := range r.ParetoUncertain() {
		if u {
			unsure = append(unsure, all[i])
		}
	}
	if len(unsure) > 0 {
		up, err := plotter.NewScatter(unsure)
		if err != nil {
			return nil, err
		}
		up.GlyphStyle = draw.GlyphStyle{Shape: draw.SquareGlyph{}, Color: colorOf(1), Radius: vg.Points(5)}
		p.Add(up)
		p.Legend.Add("off the front, not significantly beaten", up)
	}
	labelled, names := placeLabels(all, labels, front, xmin, xmax, ymax, w, h)
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: labelled, Labels: names})
	if err != nil {
		return nil, err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font.Size = vg.Points(8)
	}
	lb.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(2)}
	p.Add(lb)
	p.Legend.Top = true
	p.X.Min, p.X.Max, p.Y.Max = xmin, xmax, ymax
	return saveFigure(dir, "pareto", w, h, func(dc draw.Canvas) { p.Draw(dc) })
}

// The Pareto figure's size.
const (
	paretoWidth  = vg.Inch * 10
	paretoHeight = vg.Inch * 6
)

// placeLabels picks the points to label so that no two labels overlap:
// the front first, then the rest in order, each kept only if its box (an
// estimate, from the font size and the plot area) is clear of those kept
// before it and of the legend in the top right corner.
func placeLabels(xys plotter.XYs, labels []string, front []bool, xmin, xmax, ymax float64, w, h vg.Length) (plotter.XYs, []string) {
	const fontPts, charPts = 8.0, 4.4            // an 8-point font's height and mean advance
	areaW, areaH := w.Points()-80, h.Points()-70 // the plot area, less the axes and title
	type box struct{ x0, y0, x1, y1 float64 }
	taken := []box{{areaW - 110, areaH - 30, areaW, areaH}} // the legend
	var out plotter.XYs
	var names []string
	order := make([]int, 0, len(xys))
	for _, want := range []bool{true, false} {
		for i := range xys {
			if front[i] == want {
				order = append(order, i)
			}
		}
	}
	for _, i := range order {
		x := (xys[i].X - xmin) / (xmax - xmin) * areaW
		y := xys[i].Y / ymax * areaH
		b := box{x + 5, y - 2, x + 7 + charPts*float64(len(labels[i])), y + fontPts + 2}
		clear := b.x1 <= areaW
		for _, t := range taken {
			if b.x0 < t.x1 && t.x0 < b.x1 && b.y0 < t.y1 && t.y0 < b.y1 {
				clear = false
				break
			}
		}
		if clear {
			taken = append(taken, b)
			out = append(out, xys[i])
			names = append(names, labels[i])
		}
	}
	return out, names
}
