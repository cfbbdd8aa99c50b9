package sim

import (
	"fmt"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/loopsim/loopsim/internal/field"
)

// PlotSweep draws the sweep curves of a result whose settings are
// Grid(bases, sweeps) for len(sweeps) of 1 or 2: against the first
// sweep's values, mean tokens per episode, mean cost per episode and the
// failure rate, one curve per base and value of the second sweep. It
// writes dir/sweep.png and .svg.
func PlotSweep(dir string, r *Result, bases int, sweeps []Sweep) ([]string, error) {
	g, err := newSweepGrid(r, bases, sweeps)
	if err != nil {
		return nil, err
	}
	plots := make([]*plot.Plot, len(sweepPanels))
	for pi, panel := range sweepPanels {
		p := newPlot(panel.title, sweeps[0].Field, panel.unit)
		p.Y.Tick.Marker = panel.ticks
		p.Y.Min = 0
		g.setXAxis(p)
		for b := range bases {
			for v2 := range g.n2 {
				if err := g.addCurve(p, panel, b, v2, pi == 0); err != nil {
					return nil, err
				}
			}
		}
		plots[pi] = p
	}
	return g.save(dir, plots)
}

// sweepPanel is one panel of the sweep figure: a figure per setting with
// its confidence interval.
type sweepPanel struct {
	title, unit string
	get         func(a *Aggregate) (float64, Interval)
	ticks       plot.Ticker
}

// sweepPanels are the sweep figure's panels, left to right.
var sweepPanels = []sweepPanel{
	{"mean tokens per episode (95% CI)", "tokens", func(a *Aggregate) (float64, Interval) { return a.Mean(Tokens), a.MeanInterval(Tokens) }, countTicks{}},
	{"mean cost per episode (95% CI)", "USD", func(a *Aggregate) (float64, Interval) {
		ci := a.MeanInterval(CostMicroUSD)
		return a.Mean(CostMicroUSD) / 1e6, Interval{ci.Lo / 1e6, ci.Hi / 1e6}
	}, countTicks{prefix: "$"}},
	{"failure rate (95% Wilson CI)", "% of episodes", func(a *Aggregate) (float64, Interval) {
		ci := a.FailureInterval()
		return 100 * a.FailureRate(), Interval{100 * ci.Lo, 100 * ci.Hi}
	}, countTicks{suffix: "%"}},
}

// sweepGrid is a result laid out as Grid(bases, sweeps): bases x n1
// values of the first sweep x n2 of the second (1 without one), the
// first sweep's values placed at xs on the x axis (numbers, or
// categories at 0, 1, 2...).
type sweepGrid struct {
	r             *Result
	sweeps        []Sweep
	bases, n1, n2 int
	xs            []float64
	numeric       bool
}

// newSweepGrid lays out r, refusing a number of sweeps or settings the
// figure cannot show.
func newSweepGrid(r *Result, bases int, sweeps []Sweep) (*sweepGrid, error) {
	if len(sweeps) == 0 || len(sweeps) > 2 {
		return nil, fmt.Errorf("plot sweep: %d sweeps, want 1 or 2", len(sweeps))
	}
	g := &sweepGrid{r: r, sweeps: sweeps, bases: bases, n1: len(sweeps[0].Values), n2: 1}
	if len(sweeps) == 2 {
		g.n2 = len(sweeps[1].Values)
	}
	if bases*g.n1*g.n2 != len(r.Settings) {
		return nil, fmt.Errorf("plot sweep: %d settings are not %d bases x %d x %d values", len(r.Settings), bases, g.n1, g.n2)
	}
	g.xs, g.numeric = sweepPositions(sweeps[0].Field, sweeps[0].Values)
	return g, nil
}

// setXAxis sets a panel's x axis: numbers with a tick at each value
// swept (up to 12) and room around the first and last, or the
// categories by name.
func (g *sweepGrid) setXAxis(p *plot.Plot) {
	if !g.numeric {
		ticks := make([]string, g.n1)
		for i, v := range g.sweeps[0].Values {
			ticks[i] = ValueLabel(g.sweeps[0].Field, v)
		}
		p.NominalX(ticks...)
		p.X.Min, p.X.Max = -0.5, float64(g.n1)-0.5
		return
	}
	lo, hi := g.xs[0], g.xs[0]
	for _, x := range g.xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	pad := max((hi-lo)*0.06, 1e-9)
	p.X.Min, p.X.Max = lo-pad, hi+pad
	if g.n1 <= 12 {
		var tks []plot.Tick
		for _, x := range g.xs {
			tks = append(tks, plot.Tick{Value: x, Label: humanCount(x)})
		}
		p.X.Tick.Marker = plot.ConstantTicks(tks)
	} else {
		p.X.Tick.Marker = countTicks{}
	}
}

// addCurve draws the curve of base b and second sweep value v2 on a
// panel: the points with their error bars, joined when the x axis is a
// number line (nothing lies between categories), and names it in the
// panel's legend when legend is set.
func (g *sweepGrid) addCurve(p *plot.Plot, panel sweepPanel, b, v2 int, legend bool) error {
	curve := b*g.n2 + v2
	xys := make(plotter.XYs, g.n1)
	bars := make(yErrPoints, g.n1)
	dodge := 0.0 // categories: the curves side by side, so that their bars do not overlap
	if !g.numeric {
		dodge = 0.06 * (float64(curve) - float64(g.bases*g.n2-1)/2)
	}
	for v1 := range g.n1 {
		sr := g.r.Settings[(b*g.n1+v1)*g.n2+v2]
		y, ci := panel.get(sr.Aggregate)
		xys[v1] = plotter.XY{X: g.xs[v1] + dodge, Y: y}
		bars[v1] = yErrPoint{x: g.xs[v1] + dodge, y: y, lo: y - max(ci.Lo, 0), hi: ci.Hi - y}
	}
	eb, err := plotter.NewYErrorBars(bars)
	if err != nil {
		return err
	}
	eb.Color, eb.Width = colorOf(curve), vg.Points(1)
	p.Add(eb)
	ln, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	ln.Color, ln.Width = colorOf(curve), vg.Points(1.5)
	pts.Color, pts.Shape, pts.Radius = colorOf(curve), draw.CircleGlyph{}, vg.Points(3)
	thumbs := []plot.Thumbnailer{pts}
	if g.numeric {
		p.Add(ln)
		thumbs = append(thumbs, ln)
	}
	p.Add(pts)
	if legend {
		p.Legend.Add(curveLabel(g.r, b, g.n1, g.n2, v2, g.sweeps), thumbs...)
	}
	return nil
}

// save draws the panels side by side with the first panel's legend to
// their right, as wide as the longest curve's name.
func (g *sweepGrid) save(dir string, plots []*plot.Plot) ([]string, error) {
	legend := plots[0].Legend
	legend.Top, legend.Left = true, true
	legend.YOffs = -vg.Points(24)
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6),
		PadRight: vg.Points(10), PadX: vg.Points(18)}
	longest := 0
	for b := range g.bases {
		for v2 := range g.n2 {
			longest = max(longest, len(curveLabel(g.r, b, g.n1, g.n2, v2, g.sweeps)))
		}
	}
	legendWidth := vg.Points(50 + 5*float64(longest))
	return SaveFigure(dir, "sweep", vg.Inch*14+legendWidth, vg.Inch*5, func(dc draw.Canvas) {
		area := draw.Crop(dc, 0, -legendWidth, 0, 0)
		for i, p := range plots {
			p.Legend = plot.NewLegend()
			p.Draw(tiles.At(area, i, 0))
		}
		legend.Draw(draw.Crop(dc, dc.Max.X-dc.Min.X-legendWidth+vg.Points(10), 0, 0, 0))
	})
}

// sweepPositions places a sweep's values on the x axis: at their values
// when they are numbers on a number line, else, categories
// ([Categorical]), at 0, 1, 2...
func sweepPositions(name string, values []string) ([]float64, bool) {
	xs := make([]float64, len(values))
	categorical := Categorical(name, values)
	for i, v := range values {
		xs[i] = float64(i)
		if !categorical {
			xs[i], _ = field.ParseFloat(v)
		}
	}
	return xs, !categorical
}

// curveLabel names curve (base b, second sweep value v2).
func curveLabel(r *Result, b, n1, n2, v2 int, sweeps []Sweep) string {
	s := r.Settings[b*n1*n2].Setting
	parts := []string{s.Profile()}
	if len(sweeps) == 2 {
		parts = append(parts, paramLabel(Param{Field: sweeps[1].Field, Value: sweeps[1].Values[v2]}))
	}
	return strings.Join(parts, " ")
}

// yErrPoint is a point with asymmetric vertical errors; yErrPoints
// implement plotter.XYer and plotter.YErrorer.
type yErrPoint struct{ x, y, lo, hi float64 }

type yErrPoints []yErrPoint

func (e yErrPoints) Len() int                        { return len(e) }
func (e yErrPoints) XY(i int) (float64, float64)     { return e[i].x, e[i].y }
func (e yErrPoints) YError(i int) (float64, float64) { return e[i].lo, e[i].hi }

// xyErrPoints are points with asymmetric errors on both axes.
type xyErrPoints []struct{ x, y, xlo, xhi, ylo, yhi float64 }

func (e xyErrPoints) Len() int                        { return len(e) }
func (e xyErrPoints) XY(i int) (float64, float64)     { return e[i].x, e[i].y }
func (e xyErrPoints) XError(i int) (float64, float64) { return e[i].xlo, e[i].xhi }
func (e xyErrPoints) YError(i int) (float64, float64) { return e[i].ylo, e[i].yhi }
