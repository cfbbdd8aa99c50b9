package sim

import (
	"image/color"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/loopsim/loopsim/loop"
)

// maxBars caps the settings drawn in the terminals chart.
const maxBars = 40

// barSeries is one stacked segment of the terminals chart: its name and
// each setting's share (%).
type barSeries struct {
	name   string
	color  color.Color
	values []float64
}

// terminalPanel is one side of the terminals chart.
type terminalPanel struct {
	title  string
	series []barSeries // only those some setting shows
}

// terminalPanels splits the endings other than completed: the failures
// ([FailureTerminals], completions after an API error, halts), and the
// endings the user, a hook or the caller's turn cap chose.
func terminalPanels(r *Result, settings []SettingResult) [2]terminalPanel {
	share := func(count func(a *Aggregate) int) []float64 {
		v := make([]float64, len(settings))
		for i, s := range settings {
			v[i] = 100 * float64(count(s.Aggregate)) / float64(max(s.Aggregate.Episodes, 1))
		}
		return v
	}
	var failures, chosen []barSeries
	for ti, t := range loop.Terminals {
		if t == loop.Completed {
			continue
		}
		s := barSeries{name: string(t), color: colorOf(ti), values: share(func(a *Aggregate) int { return a.Terminals[t] })}
		if IsFailure(t) {
			failures = append(failures, s)
		} else {
			chosen = append(chosen, s)
		}
	}
	failures = append(failures,
		barSeries{name: "completed after an API error", color: color.RGBA{219, 219, 141, 255},
			values: share(func(a *Aggregate) int { return a.CompletedAfterAPIError })},
		barSeries{name: "halted (iteration limit)", color: color.Black, values: share(func(a *Aggregate) int { return a.Halted })})
	shown := func(all []barSeries) []barSeries {
		var out []barSeries
		for _, s := range all {
			for _, v := range s.values {
				if v > 0 {
					out = append(out, s)
					break
				}
			}
		}
		return out
	}
	return [2]terminalPanel{
		{title: "Failures: the loop gave up", series: shown(failures)},
		{title: "Ended by the user, a hook or the turn cap", series: shown(chosen)},
	}
}

// PlotTerminals draws, for each setting (the first forty), the share of
// episodes that did not complete, in two charts side by side: the
// failures (the failure terminals, completions after an API error, and
// halts) and the endings the user, a hook or the caller's turn cap chose
// (aborts, hook stops, max_turns), each as stacked horizontal bars by
// terminal with each segment's share and the bar's total written; it
// writes dir/terminals.png and .svg.
func PlotTerminals(dir string, r *Result) ([]string, error) {
	settings := r.Settings[:min(len(r.Settings), maxBars)]
	labels := r.Labels()[:len(settings)]
	panels := terminalPanels(r, settings)
	names := make([]string, len(labels))
	for i, l := range labels { // the first setting at the top
		names[len(labels)-1-i] = l
	}
	most := 0.0 // both charts on one scale, so that lengths compare
	for _, pn := range panels {
		for _, t := range pn.totals(len(settings)) {
			most = max(most, t)
		}
	}
	var plots []*plot.Plot
	var legends []plot.Legend
	entries := 0
	for pi, pn := range panels {
		p, err := terminalChart(pn, names, most)
		if err != nil {
			return nil, err
		}
		if pi > 0 {
			p.HideY() // the settings are named once, on the left
		}
		entries = max(entries, len(pn.series))
		legends = append(legends, p.Legend)
		p.Legend = plot.NewLegend() // drawn under the chart
		plots = append(plots, p)
	}
	return saveTerminals(dir, plots, legends, entries, labels)
}

// totals is each of the first n settings' share of the panel's endings
// (%).
func (pn terminalPanel) totals(n int) []float64 {
	totals := make([]float64, n)
	for _, s := range pn.series {
		for i, v := range s.values {
			totals[i] += v
		}
	}
	return totals
}

// terminalChart draws one panel: a stacked horizontal bar per setting
// (names, the first at the top), its x axis up to most with room for the
// totals, each segment's share where it is wide enough and each bar's
// total written, and the segments named in the plot's legend.
func terminalChart(pn terminalPanel, names []string, most float64) (*plot.Plot, error) {
	n := len(names)
	p := newPlot(pn.title, "share of episodes (%)", "")
	p.X.Tick.Marker = countTicks{suffix: "%"}
	p.X.Min = 0
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	p.Legend.Top, p.Legend.Left = true, true
	p.X.Max = max(most*1.15, 1) // room for the totals
	var below *plotter.BarChart
	for _, s := range pn.series {
		b, err := plotter.NewBarChart(reversed(s.values), vg.Points(16))
		if err != nil {
			return nil, err
		}
		b.Horizontal = true
		b.Color = s.color
		b.LineStyle.Width = 0
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		p.Legend.Add(s.name, b)
	}
	p.Add(barShares(pn, n, p.X.Max))
	if len(pn.series) == 0 {
		p.Title.Text += ": none"
	}
	p.Legend.Padding = vg.Points(3)
	return p, nil
}

// reversed is v from last to first, as bar values: the first setting's
// bar at the top.
func reversed(v []float64) plotter.Values {
	out := make(plotter.Values, len(v))
	for i, x := range v {
		out[len(v)-1-i] = x
	}
	return out
}

// barShares writes each segment's share on the bars of the first n
// settings where it is wide enough (on an axis up to xMax), and each
// bar's total after it.
func barShares(pn terminalPanel, n int, xMax float64) barValues {
	totals := pn.totals(n)
	var values barValues
	for i := range n {
		y := float64(n - 1 - i)
		at := 0.0
		for _, s := range pn.series {
			v := s.values[i]
			if v > 0 && v >= 0.12*xMax && v < totals[i]-1e-9 { // a bar of one segment shows its total only
				values = append(values, barValue{x: at + v/2, y: y, text: shareText(v), inside: true, dark: dark(s.color)})
			}
			at += v
		}
		values = append(values, barValue{x: at, y: y, text: shareText(totals[i])})
	}
	return values
}

// saveTerminals draws the two charts side by side, the left wider by the
// settings' names (labels), and their legends under them, as tall as the
// longer one's entries.
func saveTerminals(dir string, plots []*plot.Plot, legends []plot.Legend, entries int, labels []string) ([]string, error) {
	legendH := vg.Points(15)*vg.Length(entries) + vg.Points(10)
	h := vg.Inch*1 + vg.Points(26)*vg.Length(len(labels)) + legendH
	w := vg.Inch * 15
	// the left chart is wider by the settings' names
	split := w*0.52 + vg.Points(5*float64(longest(labels)))
	return SaveFigure(dir, "terminals", w, h, func(dc draw.Canvas) {
		charts := draw.Crop(dc, vg.Points(4), -vg.Points(10), legendH, -vg.Points(4))
		plots[0].Draw(draw.Crop(charts, 0, split-w, 0, 0))
		plots[1].Draw(draw.Crop(charts, split+vg.Points(16), 0, 0, 0))
		legs := draw.Crop(dc, 0, 0, 0, legendH-h)
		legends[0].Draw(draw.Crop(legs, vg.Points(5*float64(longest(labels)))+vg.Points(40), split-w, 0, 0))
		legends[1].Draw(draw.Crop(legs, split+vg.Points(50), 0, 0, 0))
	})
}

// longest is the length of the longest of labels.
func longest(labels []string) int {
	n := 0
	for _, l := range labels {
		n = max(n, len(l))
	}
	return n
}

// shareText writes a share of episodes: "4.5%", "0.05%".
func shareText(v float64) string {
	if v < 0.1 {
		return strconv.FormatFloat(v, 'f', 2, 64) + "%"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + "%"
}

// barValue is a value written on a bar chart: centred inside a segment,
// or just right of a bar's end.
type barValue struct {
	x, y   float64
	text   string
	inside bool
	dark   bool // the segment under an inside value is dark: white text
}

// dark reports whether c is dark enough for white text on it.
func dark(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return 0.299*float64(r)+0.587*float64(g)+0.114*float64(b) < 0.6*0xffff
}

// barValues writes values on a bar chart without changing its axes.
type barValues []barValue

// Plot implements plot.Plotter.
func (vs barValues) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := p.Legend.TextStyle
	sty.Font.Size = vg.Points(8)
	sty.YAlign = draw.YCenter
	for _, v := range vs {
		pt := vg.Point{X: trX(v.x), Y: trY(v.y)}
		sty.XAlign, sty.Color = draw.XLeft, color.Black
		if v.inside {
			sty.XAlign = draw.XCenter
			if v.dark {
				sty.Color = color.White
			}
		} else {
			pt.X += vg.Points(3)
		}
		c.FillText(sty, pt, v.text)
	}
}
