package replay

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"github.com/loopsim/loopsim/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// replayColors are the replays' colours; the real session is black.
var replayColors = []color.Color{
	color.RGBA{R: 31, G: 119, B: 180, A: 255},
	color.RGBA{R: 214, G: 39, B: 40, A: 255},
	color.RGBA{R: 44, G: 160, B: 44, A: 255},
	color.RGBA{R: 148, G: 103, B: 189, A: 255},
}

// Plot draws the context at each call, real against each
// replay, with compactions marked, and the last setting's auto-compact
// threshold and window across. It writes dir/name.png and returns the
// file's name.
func Plot(dir, name string, r *Result) (string, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: context per call, real vs replayed", filepath.Base(r.Name))
	p.X.Label.Text = "call of the real session"
	p.X.Tick.Marker = tokenTicks{}
	p.Y.Label.Text = "context (tokens)"
	p.Y.Min = 0
	p.Y.Tick.Marker = tokenTicks{}
	sides := append([]Side{r.Real}, r.Sides...)
	for i, s := range sides {
		col := color.Color(color.Black)
		if i > 0 {
			col = replayColors[(i-1)%len(replayColors)]
		}
		var line, marks plotter.XYs
		for k, c := range s.Contexts {
			x := float64(s.CallOf[min(k, len(s.CallOf)-1)])
			line = append(line, plotter.XY{X: x, Y: float64(c)})
		}
		for _, call := range s.Compactions {
			if k := indexOfCall(s, call); k >= 0 {
				marks = append(marks, plotter.XY{X: float64(call), Y: float64(s.Contexts[k])})
			}
		}
		if len(line) == 0 {
			continue
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return "", fmt.Errorf("plot replay: %w", err)
		}
		l.Color, l.Width = col, vg.Points(1.2)
		if i > 0 {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(2)}
		}
		p.Add(l)
		label := s.Label
		if i > 0 && s.Terminal != "" {
			label += " (" + s.Terminal + ")"
		}
		p.Legend.Add(label, l)
		if len(marks) > 0 {
			sc, err := plotter.NewScatter(marks)
			if err != nil {
				return "", fmt.Errorf("plot replay: %w", err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(4), Shape: draw.TriangleGlyph{}}
			p.Add(sc)
			p.Legend.Add("compaction ("+shortLabel(s.Label)+")", sc)
		}
	}
	if n := len(r.Settings); n > 0 {
		set := r.Settings[n-1]
		lim := set.Policy.Limits(set.Model)
		for _, h := range []struct {
			label string
			y     int
			on    bool
		}{{"auto-compact threshold", lim.AutoCompactThreshold, set.Policy.AutoCompact}, {"window", lim.Window, true}} {
			if !h.on || h.y <= 0 {
				continue
			}
			l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: float64(h.y)}, {X: float64(r.Calls - 1), Y: float64(h.y)}})
			if err != nil {
				return "", fmt.Errorf("plot replay: %w", err)
			}
			l.Color, l.Dashes = color.Gray{Y: 140}, []vg.Length{vg.Points(2), vg.Points(2)}
			p.Add(l)
			p.Legend.Add(h.label+" ("+shortLabel(set.Name)+")", l)
		}
	}
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	file := name + ".png"
	if err := p.Save(20*vg.Centimeter, 12*vg.Centimeter, filepath.Join(dir, file)); err != nil {
		return "", fmt.Errorf("plot replay: %w", err)
	}
	return file, nil
}

// indexOfCall is the index of the first context of s standing for call.
func indexOfCall(s Side, call int) int {
	for k, c := range s.CallOf {
		if c == call && k < len(s.Contexts) {
			return k
		}
	}
	return -1
}

// shortLabel trims a setting's name for a legend.
func shortLabel(s string) string {
	if len(s) > 48 {
		return s[:45] + "..."
	}
	return s
}

// tokenTicks labels an axis at four to ten round values (0, 50k, 100k).
type tokenTicks struct{}

// Ticks implements plot.Ticker.
func (tokenTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: sim.FormatTokens(lo)}}
	}
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/4)))
	for _, m := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(m*step) <= 10 {
			step *= m
			break
		}
	}
	var ts []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: sim.FormatTokens(v)})
	}
	return ts
}
