package sim

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SaveFigure draws a figure of w by h with paint on a white background
// and writes it to dir as name.png and name.svg. It returns the two file
// names.
func SaveFigure(dir, name string, w, h vg.Length, paint func(dc draw.Canvas)) ([]string, error) {
	var files []string
	for _, format := range []string{"png", "svg"} {
		c, err := draw.NewFormattedCanvas(w, h, format)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", name, err)
		}
		dc := draw.New(c)
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		paint(dc)
		file := name + "." + format
		if err := writeTo(filepath.Join(dir, file), c); err != nil {
			return nil, fmt.Errorf("plot %s: %w", name, err)
		}
		files = append(files, file)
	}
	return files, nil
}

func writeTo(path string, c vg.CanvasWriterTo) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// newPlot is a plot with the figures' common style.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(10)
		a.Tick.Label.Font.Size = vg.Points(9)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	return p
}

// countTicks labels an axis of counts (tokens, dollars' worth of them)
// 0, 500, 50k, 1.5M; on a log scale, at powers of ten and their halves.
type countTicks struct {
	log bool
	// prefix and suffix decorate each label ("$", "%").
	prefix, suffix string
	// decades, on a log scale, labels the powers of ten only (narrow
	// plots); the 2s and 5s are unlabelled ticks.
	decades bool
}

// Ticks implements plot.Ticker.
func (t countTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	if t.log {
		for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
			for _, m := range []float64{1, 2, 5} {
				v := m * math.Pow(10, e)
				if v < lo || v > hi {
					continue
				}
				label := t.prefix + humanCount(v) + t.suffix
				if t.decades && m != 1 {
					label = ""
				}
				ts = append(ts, plot.Tick{Value: v, Label: label})
			}
		}
		if len(ts) >= 2 {
			return ts
		}
		ts = nil
	}
	for _, x := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if x.Label != "" {
			x.Label = t.prefix + humanCount(x.Value) + t.suffix
		}
		ts = append(ts, x)
	}
	return ts
}

// humanCount writes v with k and M for thousands and millions, and at
// most three significant digits below a thousand.
func humanCount(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case a >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	case a == 0:
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// palette is the figures' colours (Tableau 10), in order.
var palette = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255}, color.RGBA{44, 160, 44, 255},
	color.RGBA{214, 39, 40, 255}, color.RGBA{148, 103, 189, 255}, color.RGBA{140, 86, 75, 255},
	color.RGBA{227, 119, 194, 255}, color.RGBA{127, 127, 127, 255}, color.RGBA{188, 189, 34, 255},
	color.RGBA{23, 190, 207, 255},
}

func colorOf(i int) color.Color { return palette[i%len(palette)] }

// ShortLabels names each setting by what sets it apart: the profile if
// the settings have several, and the overrides not common to all, each
// value shown by [ValueLabel] ("stop_hook_block_cap=off").
func ShortLabels(settings []Setting) []string {
	profiles := map[string]bool{}
	count := map[string]int{}
	for _, s := range settings {
		profiles[s.Profile()] = true
		for _, p := range s.Params {
			count[p.String()]++
		}
	}
	out := make([]string, len(settings))
	for i, s := range settings {
		var parts []string
		if len(profiles) > 1 {
			parts = append(parts, s.Profile())
		}
		for _, p := range s.Params {
			if count[p.String()] < len(settings) {
				parts = append(parts, paramLabel(p))
			}
		}
		if len(parts) == 0 {
			parts = []string{s.Profile()}
		}
		out[i] = strings.Join(parts, " ")
	}
	return out
}

// drawFigureTitle writes a figure's title centred at its top.
func drawFigureTitle(dc draw.Canvas, w, h vg.Length, title string) {
	p := plot.New()
	dc.FillText(draw.TextStyle{Color: color.Black, Font: p.Title.TextStyle.Font, XAlign: draw.XCenter, YAlign: draw.YTop,
		Handler: p.TextHandler}, vg.Point{X: w / 2, Y: h - vg.Points(6)}, title)
}
