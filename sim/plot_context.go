package sim

import (
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

// contextFigure builds a context figure: a tile for each sample, then
// the legend's entries for the limits and events the tiles show.
func contextFigure(samples []ContextSample, labels []string, autoCompact []bool) (*contextFig, error) {
	b := newContextBuilder(labels, autoCompact)
	for _, cs := range samples {
		p, err := b.tile(cs)
		if err != nil {
			return nil, err
		}
		b.fig.plots = append(b.fig.plots, p)
	}
	b.addLimitEntries()
	b.addMarkEntries()
	return b.fig, nil
}

// contextBuilder builds a context figure tile by tile and remembers
// which limits and events the tiles drew, for the legend.
type contextBuilder struct {
	fig         *contextFig
	labels      []string
	autoCompact []bool
	// marksSeen, limitsSeen: the kinds of events and limits drawn;
	// limitsDiffer: the limits drawn once per setting, in its colour.
	marksSeen    [numMarkKinds]bool
	limitsSeen   []bool
	limitsDiffer []bool
}

// newContextBuilder starts a figure whose legend names every setting in
// its colour.
func newContextBuilder(labels []string, autoCompact []bool) *contextBuilder {
	b := &contextBuilder{fig: &contextFig{legend: plot.NewLegend()}, labels: labels, autoCompact: autoCompact,
		limitsSeen: make([]bool, len(limitLines)), limitsDiffer: make([]bool, len(limitLines))}
	lg := &b.fig.legend
	lg.TextStyle.Font.Size = vg.Points(11)
	lg.Top, lg.Left = true, true
	lg.XOffs, lg.YOffs = vg.Points(30), -vg.Points(10)
	lg.Padding = vg.Points(4)
	for k, l := range labels {
		ln, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
		ln.Color, ln.Width = colorOf(k), vg.Points(2.5)
		b.addEntry(l, ln)
	}
	return b
}

// addEntry adds a legend entry, once per name.
func (b *contextBuilder) addEntry(name string, th ...plot.Thumbnailer) {
	if name != "" && !slices.Contains(b.fig.entries, name) {
		b.fig.legend.Add(name, th...)
		b.fig.entries = append(b.fig.entries, name)
	}
}

// addLimitEntries adds a legend entry for each limit drawn.
func (b *contextBuilder) addLimitEntries() {
	for li, l := range limitLines {
		if !b.limitsSeen[li] {
			continue
		}
		ln, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
		ln.Color, ln.Dashes, ln.Width = l.color, l.dashes, vg.Points(1.5)
		name := l.name
		if b.limitsDiffer[li] {
			name += " (in each setting's colour)"
		}
		b.addEntry(name, ln)
	}
}

// addMarkEntries adds a legend entry for each kind of event marked.
func (b *contextBuilder) addMarkEntries() {
	for kind := range numMarkKinds {
		if !b.marksSeen[kind] {
			continue
		}
		sc, _ := plotter.NewScatter(plotter.XYs{{X: 0, Y: 0}})
		sc.GlyphStyle = draw.GlyphStyle{Shape: markShapes[kind].shape, Radius: markShapes[kind].radius, Color: color.Black}
		b.addEntry(kind.String(), sc)
	}
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
