package sim

import (
	"fmt"
	"image/color"
	"slices"
	"strings"

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
	value  func(tl Timeline) int
}

var limitLines = []limitLine{
	{"context window", color.Gray{Y: 40}, nil, func(tl Timeline) int { return tl.Limits.Window }},
	{"blocking limit", color.Gray{Y: 90}, []vg.Length{vg.Points(6), vg.Points(3)}, func(tl Timeline) int { return tl.Limits.BlockingLimit }},
	{"auto-compact threshold", color.Gray{Y: 120}, []vg.Length{vg.Points(2), vg.Points(2)}, func(tl Timeline) int { return tl.Limits.AutoCompactThreshold }},
}

// markShapes are the glyphs of the marked events, drawn in the colour of
// the setting they happened under.
var markShapes = [numMarkKinds]struct {
	shape  draw.GlyphDrawer
	radius vg.Length
}{
	MarkAutoCompact:     {draw.PyramidGlyph{}, vg.Points(4)},
	MarkReactiveCompact: {draw.CrossGlyph{}, vg.Points(4)},
	MarkRetry:           {draw.CircleGlyph{}, vg.Points(2.5)},
	MarkTruncation:      {draw.TriangleGlyph{}, vg.Points(4)},
	MarkStopHookBlock:   {draw.BoxGlyph{}, vg.Points(3)},
	MarkFallback:        {draw.RingGlyph{}, vg.Points(4)},
	MarkStreamCut:       {draw.PlusGlyph{}, vg.Points(4)},
}

// MaxContextSettings caps the settings drawn over one another in one
// context figure; more settings make more figures.
const MaxContextSettings = 6

// ContextSample is one sample episode as every setting compared played
// it (the settings of a run play the same episodes).
type ContextSample struct {
	// Feature says why the episode was picked, PickedBy by which
	// setting (an index into the settings compared).
	Feature  string
	PickedBy int
	// Index and Seed identify the episode.
	Index int
	Seed  uint64
	// Timelines are the episode under each setting, in order.
	Timelines []Timeline
}

// CompareSamples records the sample episodes of settings (indices into
// r.Settings): for each feature, the episode the first of them that
// showed it picked, each episode once, played again under every one of
// them.
func CompareSamples(r *Result, settings []int) ([]ContextSample, error) {
	var out []ContextSample
	var seen []int
	for f := range numFeatures {
		for k, si := range settings {
			p := r.Settings[si].Aggregate.Picks[f]
			if !p.OK {
				continue
			}
			if !slices.Contains(seen, p.Index) {
				seen = append(seen, p.Index)
				cs := ContextSample{Feature: f.String(), PickedBy: k, Index: p.Index, Seed: p.Seed}
				for _, sj := range settings {
					tl, err := Record(r.Settings[sj].Setting, p.Index, p.Seed, f.String())
					if err != nil {
						return nil, err
					}
					cs.Timelines = append(cs.Timelines, tl)
				}
				out = append(out, cs)
			}
			break
		}
	}
	return out, nil
}

// PlotContext draws each sample in a tile of its own: context tokens
// over iterations under each setting (labels, one colour each; where the
// settings' lines coincide the earlier ones are drawn wider, so that
// every setting shows), the events marked in the setting's colour, and
// the window, the blocking limit and, where autoCompact says it acts,
// the auto-compact threshold drawn across (in the setting's colour when
// the settings' limits differ). The legend, of what the figure shows
// only, is in the last tile. It writes dir/name.png and .svg.
func PlotContext(dir, name, title string, samples []ContextSample, labels []string, autoCompact []bool) ([]string, error) {
	if len(samples) == 0 {
		return nil, nil
	}
	fig, err := contextFigure(samples, labels, autoCompact)
	if err != nil {
		return nil, err
	}
	const cols = 3
	rows := (len(fig.plots) + 1 + cols - 1) / cols
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadTop: vg.Points(28), PadBottom: vg.Points(6), PadLeft: vg.Points(6),
		PadRight: vg.Points(10), PadX: vg.Points(14), PadY: vg.Points(14)}
	w, h := vg.Inch*14, vg.Inch*4.2*vg.Length(rows)
	return SaveFigure(dir, name, w, h, func(dc draw.Canvas) {
		drawFigureTitle(dc, w, h, title)
		for i, p := range fig.plots {
			p.Draw(tiles.At(dc, i%cols, i/cols))
		}
		n := len(fig.plots)
		fig.legend.Draw(tiles.At(dc, n%cols, n/cols))
	})
}

// contextFig is a context figure's tiles and legend, and the legend's
// entries by name (for tests).
type contextFig struct {
	plots   []*plot.Plot
	legend  plot.Legend
	entries []string
}

func contextFigure(samples []ContextSample, labels []string, autoCompact []bool) (*contextFig, error) {
	n := len(labels)
	fig := &contextFig{legend: plot.NewLegend()}
	fig.legend.TextStyle.Font.Size = vg.Points(11)
	fig.legend.Top, fig.legend.Left = true, true
	fig.legend.XOffs, fig.legend.YOffs = vg.Points(30), -vg.Points(10)
	fig.legend.Padding = vg.Points(4)
	add := func(name string, th ...plot.Thumbnailer) {
		if name != "" && !slices.Contains(fig.entries, name) {
			fig.legend.Add(name, th...)
			fig.entries = append(fig.entries, name)
		}
	}
	width := func(k int) vg.Length { return vg.Points(1.2 + 0.5*float64(n-1-k)) }
	for k, l := range labels {
		ln, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
		ln.Color, ln.Width = colorOf(k), vg.Points(2.5)
		add(l, ln)
	}
	var marksSeen [numMarkKinds]bool
	limitsSeen := make([]bool, len(limitLines))
	limitsDiffer := make([]bool, len(limitLines))
	for _, cs := range samples {
		tls := cs.Timelines
		ends := map[string]bool{}
		last, top := 1, 0
		for _, tl := range tls {
			ends[tl.Terminal] = true
			top = max(top, tl.Limits.Window)
			for _, pt := range tl.Points {
				last = max(last, pt.Iteration)
			}
		}
		ending := ""
		if len(ends) == 1 {
			ending = ", " + tls[0].Terminal
		} else {
			ending = ", endings differ"
		}
		title := fmt.Sprintf("%s: episode %d%s", cs.Feature, cs.Index, ending)
		if n > 1 {
			title = fmt.Sprintf("episode %d%s\n%s in\n%s", cs.Index, ending, cs.Feature, labels[cs.PickedBy])
		}
		p := newPlot(title, "iteration", "context (tokens)")
		p.Y.Tick.Marker, p.X.Tick.Marker = countTicks{}, countTicks{}
		p.Y.Min, p.Y.Max = 0, float64(top)*1.08
		p.X.Min, p.X.Max = 0, float64(last)+1
		for li, l := range limitLines {
			var vals []int
			for k, tl := range tls {
				if l.name == "auto-compact threshold" && !autoCompact[k] {
					vals = append(vals, -1)
					continue
				}
				vals = append(vals, l.value(tl))
			}
			// one line when the settings that have the limit agree on it
			var drawn []int
			for _, v := range vals {
				if v >= 0 {
					drawn = append(drawn, v)
				}
			}
			same := !slices.ContainsFunc(drawn, func(v int) bool { return v != drawn[0] })
			once := false
			for k, v := range vals {
				if v < 0 || (same && once) {
					continue
				}
				once = true
				ln, err := plotter.NewLine(plotter.XYs{{X: 0, Y: float64(v)}, {X: float64(last) + 1, Y: float64(v)}})
				if err != nil {
					return nil, err
				}
				ln.Color, ln.Dashes, ln.Width = l.color, l.dashes, vg.Points(1)
				if !same {
					ln.Color = colorOf(k)
					limitsDiffer[li] = true
				}
				p.Add(ln)
				limitsSeen[li] = true
			}
		}
		// a setting that played the episode exactly as an earlier one is
		// drawn once, in the earlier one's colour, and named in a note
		sameAs := make([]int, len(tls))
		var notes []string
		var noteColors []color.Color
		for k := range tls {
			sameAs[k] = k
			for j := range k {
				if sameAs[j] == j && slices.Equal(tls[j].Points, tls[k].Points) && slices.Equal(tls[j].Marks, tls[k].Marks) &&
					tls[j].Terminal == tls[k].Terminal {
					sameAs[k] = j
					break
				}
			}
		}
		for j := range tls {
			group := []string{labels[j]}
			for k := j + 1; k < len(tls); k++ {
				if sameAs[k] == j {
					group = append(group, labels[k])
				}
			}
			if sameAs[j] == j && len(group) > 1 {
				for _, line := range wrapNote("identical under "+sameNames(group), noteWidth) {
					notes = append(notes, line)
					noteColors = append(noteColors, colorOf(j))
				}
			}
		}
		if len(notes) > 0 { // above the window, with room made for them
			p.Y.Max = float64(top) * (1.08 + 0.055*float64(len(notes)))
			p.Add(&cornerNotes{lines: notes, colors: noteColors})
		}
		for k, tl := range tls {
			if len(tl.Points) == 0 || sameAs[k] != k {
				continue
			}
			xys := make(plotter.XYs, len(tl.Points))
			for i, pt := range tl.Points {
				xys[i] = plotter.XY{X: float64(pt.Iteration), Y: float64(pt.Tokens)}
			}
			ln, err := plotter.NewLine(xys)
			if err != nil {
				return nil, err
			}
			ln.Color, ln.Width = colorOf(k), width(k)
			p.Add(ln)
			if len(ends) > 1 {
				end := tl.Points[len(tl.Points)-1]
				p.Add(&endNote{x: float64(end.Iteration), y: float64(end.Tokens), text: tl.Terminal, color: colorOf(k), rise: vg.Points(4 + 9*float64(k))})
			}
		}
		for k, tl := range tls {
			if sameAs[k] != k {
				continue
			}
			for kind := range numMarkKinds {
				var pts plotter.XYs
				for _, m := range tl.Marks {
					if m.Kind == kind {
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
				sc.GlyphStyle = draw.GlyphStyle{Shape: markShapes[kind].shape, Radius: markShapes[kind].radius, Color: colorOf(k)}
				p.Add(sc)
				marksSeen[kind] = true
			}
		}
		fig.plots = append(fig.plots, p)
	}
	for li, l := range limitLines {
		if !limitsSeen[li] {
			continue
		}
		ln, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
		ln.Color, ln.Dashes, ln.Width = l.color, l.dashes, vg.Points(1.5)
		name := l.name
		if limitsDiffer[li] {
			name += " (in each setting's colour)"
		}
		add(name, ln)
	}
	for kind := range numMarkKinds {
		if !marksSeen[kind] {
			continue
		}
		sc, _ := plotter.NewScatter(plotter.XYs{{X: 0, Y: 0}})
		sc.GlyphStyle = draw.GlyphStyle{Shape: markShapes[kind].shape, Radius: markShapes[kind].radius, Color: color.Black}
		add(kind.String(), sc)
	}
	return fig, nil
}

// cornerNotes writes lines of text in the top left corner of a plot's
// data area, without changing its axes.
type cornerNotes struct {
	lines  []string
	colors []color.Color
}

// Plot implements plot.Plotter.
func (n *cornerNotes) Plot(c draw.Canvas, p *plot.Plot) {
	sty := p.Legend.TextStyle
	sty.Font.Size = vg.Points(8)
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
	for i, l := range n.lines {
		sty.Color = n.colors[i]
		c.FillText(sty, vg.Point{X: c.Min.X + vg.Points(4), Y: c.Max.Y - vg.Points(2+10*float64(i))}, l)
	}
}

// endNote writes how a line ended just above its last point, right
// aligned, without changing the plot's axes.
type endNote struct {
	x, y  float64
	text  string
	color color.Color
	rise  vg.Length
}

// Plot implements plot.Plotter.
func (n *endNote) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := p.Legend.TextStyle
	sty.Font.Size, sty.Color = vg.Points(8), n.color
	sty.XAlign, sty.YAlign = draw.XRight, draw.YBottom
	c.FillText(sty, vg.Point{X: trX(n.x), Y: trY(n.y) + n.rise}, n.text)
}

// sameNames names settings whose labels share a beginning once: "x=1",
// "x=2", "x=off" as "x=1, 2 and off".
func sameNames(labels []string) string {
	prefix := labels[0]
	for _, l := range labels[1:] {
		for !strings.HasPrefix(l, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	// back to the end of a field's name or a word
	prefix = prefix[:strings.LastIndexAny(prefix, "= ")+1]
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = strings.TrimPrefix(l, prefix)
		if parts[i] == "" {
			parts[i] = l
		}
	}
	last := len(parts) - 1
	return prefix + strings.Join(parts[:last], ", ") + " and " + parts[last]
}

// noteWidth is the characters of a note's line in a context tile.
const noteWidth = 80

// wrapNote breaks text into lines of at most width characters at its
// spaces (a longer word stays whole), continued lines indented.
func wrapNote(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) > width:
			lines = append(lines, line)
			line = "   " + w
		default:
			line += " " + w
		}
	}
	return append(lines, line)
}
