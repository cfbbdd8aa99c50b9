package sim

import (
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// tile draws one sample episode: its title and axes, the limits across,
// a note naming the settings that played it identically, each setting's
// line (with how it ended when the endings differ) and its events.
func (b *contextBuilder) tile(cs ContextSample) (*plot.Plot, error) {
	tls := cs.Timelines
	ext := extentOf(tls)
	p := newPlot(b.tileTitle(cs, ext), "iteration", "context (tokens)")
	p.Y.Tick.Marker, p.X.Tick.Marker = countTicks{}, countTicks{}
	p.Y.Min, p.Y.Max = 0, float64(ext.top)*1.08
	p.X.Min, p.X.Max = 0, float64(ext.last)+1
	if err := b.addLimits(p, tls, ext.last); err != nil {
		return nil, err
	}
	sameAs := identicalTo(tls)
	if notes, colors := b.identicalNotes(sameAs); len(notes) > 0 { // above the window, with room made for them
		p.Y.Max = float64(ext.top) * (1.08 + 0.055*float64(len(notes)))
		p.Add(&cornerNotes{lines: notes, colors: colors})
	}
	if err := b.addLines(p, tls, sameAs, len(ext.ends) > 1); err != nil {
		return nil, err
	}
	if err := b.addMarks(p, tls, sameAs); err != nil {
		return nil, err
	}
	return p, nil
}

// extent is how far a sample's timelines reach: the last iteration, the
// largest window, and the terminals they ended in.
type extent struct {
	last, top int
	ends      map[string]bool
}

// extentOf measures a sample's timelines.
func extentOf(tls []Timeline) extent {
	ext := extent{last: 1, ends: map[string]bool{}}
	for _, tl := range tls {
		ext.ends[tl.Terminal] = true
		ext.top = max(ext.top, tl.Limits.Window)
		for _, pt := range tl.Points {
			ext.last = max(ext.last, pt.Iteration)
		}
	}
	return ext
}

// tileTitle names the episode, how it ended (or that the endings
// differ) and, when settings are compared, which one picked it and why.
func (b *contextBuilder) tileTitle(cs ContextSample, ext extent) string {
	ending := ""
	if len(ext.ends) == 1 {
		ending = ", " + cs.Timelines[0].Terminal
	} else {
		ending = ", endings differ"
	}
	if len(b.labels) > 1 {
		return fmt.Sprintf("episode %d%s\n%s in\n%s", cs.Index, ending, cs.Feature, b.labels[cs.PickedBy])
	}
	return fmt.Sprintf("%s: episode %d%s", cs.Feature, cs.Index, ending)
}

// addLimits draws each limit across the tile: once when the settings
// that have it agree on its value, else once per setting in its colour.
// The auto-compact threshold counts only for the settings where
// auto-compaction acts.
func (b *contextBuilder) addLimits(p *plot.Plot, tls []Timeline, last int) error {
	for li, l := range limitLines {
		var vals []int
		for k, tl := range tls {
			if l.name == "auto-compact threshold" && !b.autoCompact[k] {
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
				return err
			}
			ln.Color, ln.Dashes, ln.Width = l.color, l.dashes, vg.Points(1)
			if !same {
				ln.Color = colorOf(k)
				b.limitsDiffer[li] = true
			}
			p.Add(ln)
			b.limitsSeen[li] = true
		}
	}
	return nil
}

// identicalTo maps each setting to the first setting that played the
// episode exactly as it did (itself when none before did): such a
// setting is drawn once, in the earlier one's colour, and named in a
// note.
func identicalTo(tls []Timeline) []int {
	sameAs := make([]int, len(tls))
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
	return sameAs
}

// identicalNotes are the lines of the note naming each group of
// settings that played the episode identically, each line in the colour
// the group is drawn in.
func (b *contextBuilder) identicalNotes(sameAs []int) ([]string, []color.Color) {
	var notes []string
	var colors []color.Color
	for j := range sameAs {
		group := []string{b.labels[j]}
		for k := j + 1; k < len(sameAs); k++ {
			if sameAs[k] == j {
				group = append(group, b.labels[k])
			}
		}
		if sameAs[j] == j && len(group) > 1 {
			for _, line := range wrapNote("identical under "+sameNames(group), noteWidth) {
				notes = append(notes, line)
				colors = append(colors, colorOf(j))
			}
		}
	}
	return notes, colors
}

// addLines draws each setting's context over the iterations, the
// earlier settings wider so that coinciding lines all show, and, when
// the endings differ, how each ended beside its last point.
func (b *contextBuilder) addLines(p *plot.Plot, tls []Timeline, sameAs []int, endingsDiffer bool) error {
	n := len(b.labels)
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
			return err
		}
		ln.Color, ln.Width = colorOf(k), vg.Points(1.2+0.5*float64(n-1-k))
		p.Add(ln)
		if endingsDiffer {
			end := tl.Points[len(tl.Points)-1]
			p.Add(&endNote{x: float64(end.Iteration), y: float64(end.Tokens), text: tl.Terminal, color: colorOf(k), rise: vg.Points(4 + 9*float64(k))})
		}
	}
	return nil
}

// addMarks draws each setting's events, a glyph per kind in the
// setting's colour.
func (b *contextBuilder) addMarks(p *plot.Plot, tls []Timeline, sameAs []int) error {
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
				return err
			}
			sc.GlyphStyle = draw.GlyphStyle{Shape: markShapes[kind].shape, Radius: markShapes[kind].radius, Color: colorOf(k)}
			p.Add(sc)
			b.marksSeen[kind] = true
		}
	}
	return nil
}
