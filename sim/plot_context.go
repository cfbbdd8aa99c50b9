package sim

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// limitLine is a threshold drawn across a context plot.
type limitLine struct {
	name   string
	color  color.Color
	dashes []vg.Length
}

var (
	windowLine    = limitLine{"context window", color.RGBA{214, 39, 40, 255}, nil}
	blockingLine  = limitLine{"blocking limit", color.RGBA{255, 127, 14, 255}, []vg.Length{vg.Points(6), vg.Points(3)}}
	thresholdLine = limitLine{"auto-compact threshold", color.RGBA{44, 160, 44, 255}, []vg.Length{vg.Points(2), vg.Points(2)}}
	contextColor  = color.RGBA{31, 119, 180, 255}
)

// markStyles are the glyphs of the marked events.
var markStyles = [numMarkKinds]draw.GlyphStyle{
	MarkAutoCompact:     {Shape: draw.PyramidGlyph{}, Color: color.RGBA{44, 160, 44, 255}, Radius: vg.Points(4)},
	MarkReactiveCompact: {Shape: draw.CrossGlyph{}, Color: color.RGBA{214, 39, 40, 255}, Radius: vg.Points(4)},
	MarkRetry:           {Shape: draw.CircleGlyph{}, Color: color.RGBA{148, 103, 189, 255}, Radius: vg.Points(3)},
	MarkTruncation:      {Shape: draw.TriangleGlyph{}, Color: color.RGBA{255, 127, 14, 255}, Radius: vg.Points(4)},
	MarkStopHookBlock:   {Shape: draw.BoxGlyph{}, Color: color.RGBA{140, 86, 75, 255}, Radius: vg.Points(3)},
	MarkFallback:        {Shape: draw.RingGlyph{}, Color: color.RGBA{23, 190, 207, 255}, Radius: vg.Points(4)},
}

// PlotContext draws each timeline in a tile of its own (context tokens
// over iterations, the events marked, the window, the blocking limit and
// the auto-compact threshold drawn across) with a legend in the last
// tile, and writes dir/name.png and .svg.
func PlotContext(dir, name, title string, tls []Timeline, autoCompact bool) ([]string, error) {
	if len(tls) == 0 {
		return nil, nil
	}
	const cols = 3
	rows := (len(tls) + 1 + cols - 1) / cols
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadTop: vg.Points(28), PadBottom: vg.Points(6), PadLeft: vg.Points(6),
		PadRight: vg.Points(10), PadX: vg.Points(14), PadY: vg.Points(14)}
	lines := []limitLine{windowLine, blockingLine}
	if autoCompact {
		lines = append(lines, thresholdLine)
	}
	var plots []*plot.Plot
	for _, tl := range tls {
		p, err := contextPlot(tl, lines)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	w, h := vg.Inch*14, vg.Inch*4.2*vg.Length(rows)
	return saveFigure(dir, name, w, h, func(dc draw.Canvas) {
		dc.FillText(draw.TextStyle{Color: color.Black, Font: plot.New().Title.TextStyle.Font, XAlign: draw.XCenter, YAlign: draw.YTop,
			Handler: plot.New().TextHandler}, vg.Point{X: w / 2, Y: h - vg.Points(6)}, title)
		for i, p := range plots {
			p.Draw(tiles.At(dc, i%cols, i/cols))
		}
		n := len(plots)
		drawContextLegend(tiles.At(dc, n%cols, n/cols), lines)
	})
}

func contextPlot(tl Timeline, lines []limitLine) (*plot.Plot, error) {
	p := newPlot(fmt.Sprintf("%s: episode %d, %s", tl.Title, tl.Index, tl.Terminal), "iteration", "context (tokens)")
	p.Y.Tick.Marker = countTicks{}
	p.Y.Min, p.Y.Max = 0, float64(tl.Limits.Window)*1.08
	last := 1
	xys := make(plotter.XYs, len(tl.Points))
	for i, pt := range tl.Points {
		xys[i] = plotter.XY{X: float64(pt.Iteration), Y: float64(pt.Tokens)}
		last = max(last, pt.Iteration)
	}
	p.X.Min, p.X.Max = 0, float64(last)+1
	p.X.Tick.Marker = countTicks{}
	values := map[string]int{windowLine.name: tl.Limits.Window, blockingLine.name: tl.Limits.BlockingLimit,
		thresholdLine.name: tl.Limits.AutoCompactThreshold}
	for _, l := range lines {
		y := float64(values[l.name])
		ln, err := plotter.NewLine(plotter.XYs{{X: 0, Y: y}, {X: float64(last) + 1, Y: y}})
		if err != nil {
			return nil, err
		}
		ln.Color, ln.Dashes, ln.Width = l.color, l.dashes, vg.Points(1)
		p.Add(ln)
	}
	if len(xys) > 0 {
		ln, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		ln.Color, ln.Width = contextColor, vg.Points(1.2)
		p.Add(ln)
	}
	for k := range numMarkKinds {
		var pts plotter.XYs
		for _, m := range tl.Marks {
			if m.Kind == k {
				pts = append(pts, plotter.XY{X: float64(m.Iteration), Y: float64(m.Tokens)})
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = markStyles[k]
		p.Add(sc)
	}
	return p, nil
}

// drawContextLegend draws the legend of the context plots in c.
func drawContextLegend(c draw.Canvas, lines []limitLine) {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = vg.Points(11)
	l.Top, l.Left = true, true
	l.XOffs, l.YOffs = vg.Points(30), -vg.Points(30)
	l.Padding = vg.Points(5)
	ctx, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
	ctx.Color, ctx.Width = contextColor, vg.Points(1.5)
	l.Add("context (main request size)", ctx)
	for _, ln := range lines {
		t, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
		t.Color, t.Dashes, t.Width = ln.color, ln.dashes, vg.Points(1.5)
		l.Add(ln.name, t)
	}
	for k := range numMarkKinds {
		sc, _ := plotter.NewScatter(plotter.XYs{{X: 0, Y: 0}})
		sc.GlyphStyle = markStyles[k]
		l.Add(k.String(), sc)
	}
	l.Draw(c)
}
