package sim

import (
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotPareto draws each setting as a point on the Pareto axes
// ([Result.ParetoAxes]: mean cost per episode against failure rate
// unless chosen otherwise), with 95% intervals on both axes (t, Wilson),
// the settings on the Pareto front (those no other beats on both) ringed,
// the settings off the front that no setting beating them beats
// significantly ([Result.ParetoUncertain]) boxed, and every point
// labelled, by a leader line where its neighbours leave no room beside
// it. Nothing joins the points: there is nothing between two settings.
// It writes dir/pareto.png and .svg.
func PlotPareto(dir string, r *Result) ([]string, error) {
	p, _, err := paretoPlot(r)
	if err != nil {
		return nil, err
	}
	return SaveFigure(dir, "pareto", paretoWidth, paretoHeight, func(dc draw.Canvas) { p.Draw(dc) })
}

// The Pareto figure's size.
const (
	paretoWidth  = vg.Inch * 10
	paretoHeight = vg.Inch * 6
)

// paretoPlot is the Pareto view of r as a plot, and its labels.
func paretoPlot(r *Result) (*plot.Plot, *pointLabels, error) {
	ax := r.ParetoAxes()
	front, unsureMarks := r.ParetoFront(), r.ParetoUncertain()
	labels := r.Labels()
	sc := newParetoScatter(r, ax, front, unsureMarks)
	title := ax.X.short() + " against " + ax.Y.short() + " (lower left is better; 95% intervals)"
	p := newPlot(strings.ToUpper(title[:1])+title[1:], axisLabel(ax.X), axisLabel(ax.Y))
	p.X.Tick.Marker, p.Y.Tick.Marker = axisTicks(ax.X), axisTicks(ax.Y)
	sc.setRanges(p)
	if err := sc.addIntervals(p); err != nil {
		return nil, nil, err
	}
	if err := addPoints(p, sc.all, "setting", draw.GlyphStyle{Shape: draw.CircleGlyph{}, Color: colorOf(0), Radius: vg.Points(3)}); err != nil {
		return nil, nil, err
	}
	if len(sc.onFront) > 0 {
		if err := addPoints(p, sc.onFront, "on the Pareto front", draw.GlyphStyle{Shape: draw.RingGlyph{}, Color: colorOf(3), Radius: vg.Points(6)}); err != nil {
			return nil, nil, err
		}
	}
	if len(sc.unsure) > 0 {
		if err := addPoints(p, sc.unsure, "off the front, not significantly beaten", draw.GlyphStyle{Shape: draw.SquareGlyph{}, Color: colorOf(1), Radius: vg.Points(6)}); err != nil {
			return nil, nil, err
		}
	}
	p.Legend.Top = true
	pl := &pointLabels{xys: sc.all, labels: labels, order: labelOrder(front), legend: &p.Legend}
	p.Add(pl)
	return p, pl, nil
}

// paretoScatter is each setting's point on the Pareto axes, in the
// axes' units (percent for a rate, dollars for a cost), the points on
// the front and those off it but not significantly beaten, the
// intervals around each point and the bounds of them all.
type paretoScatter struct {
	all, onFront, unsure plotter.XYs
	errs                 xyErrPoints
	xlo, xhi, ylo, yhi   float64
}

// newParetoScatter places r's settings on the axes.
func newParetoScatter(r *Result, ax ParetoAxes, front, unsureMarks []bool) *paretoScatter {
	sx, sy := axisScale(ax.X), axisScale(ax.Y)
	sc := &paretoScatter{xlo: math.Inf(1), xhi: math.Inf(-1), ylo: math.Inf(1), yhi: math.Inf(-1)}
	for i, s := range r.Settings {
		x, xc := ax.X.value(s.Aggregate)
		y, yc := ax.Y.value(s.Aggregate)
		x, y = x*sx, y*sy
		xc, yc = Interval{max(xc.Lo, 0) * sx, xc.Hi * sx}, Interval{max(yc.Lo, 0) * sy, yc.Hi * sy}
		xy := plotter.XY{X: x, Y: y}
		sc.all = append(sc.all, xy)
		if front[i] {
			sc.onFront = append(sc.onFront, xy)
		}
		if unsureMarks[i] {
			sc.unsure = append(sc.unsure, xy)
		}
		sc.errs = append(sc.errs, struct{ x, y, xlo, xhi, ylo, yhi float64 }{x, y, x - xc.Lo, xc.Hi - x, y - yc.Lo, yc.Hi - y})
		sc.xlo, sc.xhi, sc.ylo, sc.yhi = min(sc.xlo, xc.Lo), max(sc.xhi, xc.Hi), min(sc.ylo, yc.Lo), max(sc.yhi, yc.Hi)
	}
	return sc
}

// axisScale converts an axis's figure to the unit drawn: a rate to
// percent, micro-dollars to dollars.
func axisScale(a ParetoAxis) float64 {
	switch {
	case a.Failure:
		return 100
	case a.Metric.Unit() == "usd":
		return 1e-6
	}
	return 1
}

// setRanges leaves room around the intervals, more on the right and at
// the top for the labels and the legend.
func (sc *paretoScatter) setRanges(p *plot.Plot) {
	xspan, yspan := max(sc.xhi-sc.xlo, math.Abs(sc.xhi)*0.1, 1e-9), max(sc.yhi-sc.ylo, math.Abs(sc.yhi)*0.1, 1e-9)
	p.X.Min, p.X.Max = max(sc.xlo-0.08*xspan, 0), sc.xhi+0.35*xspan
	p.Y.Min, p.Y.Max = max(sc.ylo-0.08*yspan, 0), sc.yhi+0.3*yspan
}

// addIntervals draws each point's intervals on both axes, in grey.
func (sc *paretoScatter) addIntervals(p *plot.Plot) error {
	xb, err := plotter.NewXErrorBars(sc.errs)
	if err != nil {
		return err
	}
	yb, err := plotter.NewYErrorBars(sc.errs)
	if err != nil {
		return err
	}
	barColor := color.Gray{Y: 170}
	xb.Color, yb.Color = barColor, barColor
	p.Add(xb, yb)
	return nil
}

// addPoints draws points in a style and names them in the legend.
func addPoints(p *plot.Plot, xys plotter.XYs, name string, style draw.GlyphStyle) error {
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	sc.GlyphStyle = style
	p.Add(sc)
	p.Legend.Add(name, sc)
	return nil
}

// labelOrder is the order the points are labelled in: the front's
// first, as they get the best places.
func labelOrder(front []bool) []int {
	order := make([]int, 0, len(front))
	for _, want := range []bool{true, false} {
		for i := range front {
			if front[i] == want {
				order = append(order, i)
			}
		}
	}
	return order
}

// axisLabel names a Pareto axis with its unit.
func axisLabel(a ParetoAxis) string {
	switch {
	case a.Failure:
		return "failure rate (% of episodes)"
	case a.Metric.Unit() == "usd":
		return "mean cost per episode (USD)"
	}
	return a.String()
}

// axisTicks labels a Pareto axis.
func axisTicks(a ParetoAxis) plot.Ticker {
	switch {
	case a.Failure:
		return countTicks{suffix: "%"}
	case a.Metric.Unit() == "usd":
		return dollarTicks{}
	}
	return countTicks{}
}

// dollarTicks labels an axis of dollars: $0.95, $1.2.
type dollarTicks struct{}

// Ticks implements plot.Ticker.
func (dollarTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := (plot.DefaultTicks{}).Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = "$" + ts[i].Label
		}
	}
	return ts
}

// pointLabels writes a label beside each point where it overlaps no
// other label, point or the legend, trying the eight places around the
// point, then the same directions farther out with a leader line; it
// labels every point, overlapping only when nothing is free.
type pointLabels struct {
	xys    plotter.XYs
	labels []string
	order  []int // the points in the order they choose their places
	legend *plot.Legend

	// placed are the label boxes of the last Plot, in canvas points, by
	// point; for tests.
	placed []vg.Rectangle
}

// labelFontSize is the labels' size.
const labelFontSize = 8

// Plot implements plot.Plotter.
func (l *pointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := p.Legend.TextStyle
	sty.Font.Size = vg.Points(labelFontSize)
	sty.Color = color.Black
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
	pts := make([]vg.Point, len(l.xys))
	var taken []vg.Rectangle
	const r = vg.Length(6) // a point's glyph, ring included
	for i, xy := range l.xys {
		pts[i] = vg.Point{X: trX(xy.X), Y: trY(xy.Y)}
		taken = append(taken, vg.Rectangle{Min: vg.Point{X: pts[i].X - r, Y: pts[i].Y - r}, Max: vg.Point{X: pts[i].X + r, Y: pts[i].Y + r}})
	}
	if l.legend != nil {
		lr := l.legend.Rectangle(c)
		w, h := lr.Max.X-lr.Min.X, lr.Max.Y-lr.Min.Y
		taken = append(taken, vg.Rectangle{Min: vg.Point{X: c.Max.X - w - 4, Y: c.Max.Y - h - 4}, Max: c.Max})
	}
	overlaps := func(b vg.Rectangle) bool {
		if b.Min.X < c.Min.X || b.Max.X > c.Max.X || b.Min.Y < c.Min.Y || b.Max.Y > c.Max.Y {
			return true
		}
		for _, t := range taken {
			if b.Min.X < t.Max.X && t.Min.X < b.Max.X && b.Min.Y < t.Max.Y && t.Min.Y < b.Max.Y {
				return true
			}
		}
		return false
	}
	// directions: right, left, up-right, down-right, up-left, down-left, up, down
	dirs := [][2]float64{{1, 0}, {-1, 0}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}, {0, 1}, {0, -1}}
	lead := draw.LineStyle{Color: color.Gray{Y: 120}, Width: vg.Points(0.5)}
	l.placed = make([]vg.Rectangle, len(l.xys))
	for _, i := range l.order {
		w, h := sty.Width(l.labels[i]), sty.Height(l.labels[i])
		box := func(d [2]float64, dist vg.Length) vg.Rectangle {
			// the label's anchor: its nearest corner or edge middle, dist from the point
			ax, ay := pts[i].X+vg.Length(d[0])*dist, pts[i].Y+vg.Length(d[1])*dist
			x0 := ax - w/2
			if d[0] > 0 {
				x0 = ax
			} else if d[0] < 0 {
				x0 = ax - w
			}
			y0 := ay - h/2
			if d[1] > 0 {
				y0 = ay
			} else if d[1] < 0 {
				y0 = ay - h
			}
			return vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x0 + w, Y: y0 + h}}
		}
		chosen, leader, found := box(dirs[0], r+2), false, false
		for _, dist := range []vg.Length{r + 2, 20, 36, 54, 75, 100} {
			for _, d := range dirs {
				if b := box(d, dist); !overlaps(b) {
					chosen, leader, found = b, dist > r+2, true
					break
				}
			}
			if found {
				break
			}
		}
		taken = append(taken, chosen)
		l.placed[i] = chosen
		if leader {
			// from the point's edge to the label's nearest point
			nx := min(max(pts[i].X, chosen.Min.X), chosen.Max.X)
			ny := min(max(pts[i].Y, chosen.Min.Y), chosen.Max.Y)
			dx, dy := float64(nx-pts[i].X), float64(ny-pts[i].Y)
			n := math.Hypot(dx, dy)
			start := vg.Point{X: pts[i].X + vg.Length(dx/n)*(r-1), Y: pts[i].Y + vg.Length(dy/n)*(r-1)}
			c.StrokeLine2(lead, start.X, start.Y, nx, ny)
		}
		// a light backing keeps the label readable over the error bars
		c.FillPolygon(color.NRGBA{255, 255, 255, 210}, []vg.Point{chosen.Min, {X: chosen.Max.X, Y: chosen.Min.Y}, chosen.Max, {X: chosen.Min.X, Y: chosen.Max.Y}})
		c.FillText(sty, chosen.Min, l.labels[i])
	}
}
