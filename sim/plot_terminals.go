package sim

import (
	"image/color"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/loopsim/loopsim/loop"
)

// maxBars caps the settings drawn in the terminals chart.
const maxBars = 40

// PlotTerminals draws, for each setting (the first forty), the share of
// episodes that ended in each terminal other than completed, and those
// that halted, as stacked horizontal bars; it writes dir/terminals.png
// and .svg.
func PlotTerminals(dir string, r *Result) ([]string, error) {
	settings := r.Settings[:min(len(r.Settings), maxBars)]
	labels := r.Labels()[:len(settings)]
	type series struct {
		name   string
		color  color.Color
		values plotter.Values
	}
	var all []series
	for ti, t := range loop.Terminals {
		if t == loop.Completed {
			continue
		}
		s := series{name: string(t), color: colorOf(ti), values: make(plotter.Values, len(settings))}
		any := false
		for i, sr := range settings {
			s.values[i] = 100 * sr.Aggregate.Rate(t)
			any = any || s.values[i] > 0
		}
		if any {
			all = append(all, s)
		}
	}
	halted := series{name: "halted (iteration limit)", color: color.Black, values: make(plotter.Values, len(settings))}
	for i, sr := range settings {
		halted.values[i] = 100 * float64(sr.Aggregate.Halted) / float64(max(sr.Aggregate.Episodes, 1))
	}
	if sum(halted.values) > 0 {
		all = append(all, halted)
	}
	p := newPlot("Episodes not completed, by terminal", "share of episodes (%)", "")
	p.X.Tick.Marker = countTicks{suffix: "%"}
	p.X.Min = 0
	p.Legend.Top = true
	// reverse so that the first setting is at the top
	rev := func(v plotter.Values) plotter.Values {
		out := make(plotter.Values, len(v))
		for i, x := range v {
			out[len(v)-1-i] = x
		}
		return out
	}
	names := make([]string, len(labels))
	for i, l := range labels {
		names[len(labels)-1-i] = l
	}
	p.NominalY(names...)
	most := 0.0
	for i := range settings {
		t := 0.0
		for _, s := range all {
			t += s.values[i]
		}
		most = max(most, t)
	}
	p.X.Max = max(most*1.4, 1) // room on the right for the legend
	var below *plotter.BarChart
	for _, s := range all {
		b, err := plotter.NewBarChart(rev(s.values), vg.Points(16))
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
	if len(all) == 0 {
		p.Title.Text = "Every episode completed"
	}
	h := vg.Inch*1.2 + vg.Points(12)*vg.Length(len(all)) + vg.Points(26)*vg.Length(len(settings))
	return saveFigure(dir, "terminals", vg.Inch*10, h, func(dc draw.Canvas) { p.Draw(dc) })
}

func sum(v plotter.Values) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}
