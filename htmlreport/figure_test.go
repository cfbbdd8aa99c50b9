package htmlreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgsvg"
)

// TestFigureFromGonum: what gonum/plot's SVG canvas writes (the format
// sim/ and reports/ draw their plots in) is accepted, its XML prolog
// dropped.
func TestFigureFromGonum(t *testing.T) {
	p := plot.New()
	p.Title.Text = "a < b & c"
	line, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 3}})
	require.NoError(t, err)
	p.Add(line)
	c, err := draw.NewFormattedCanvas(4*vg.Inch, 3*vg.Inch, "svg")
	require.NoError(t, err)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	_, err = c.WriteTo(&buf)
	require.NoError(t, err)
	f, err := NewFigure(buf.Bytes(), "cap")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(f.svg), "<svg"), "starts at the svg element")
	assert.NotContains(t, string(f.svg), "<?xml")
}

func TestFigureRefusesWhatRunsOrFetches(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`<p>no svg</p>`, "no <svg>"},
		{`<svg><script>alert(1)</script></svg>`, "<script>"},
		{`<svg><image href="https://example.com/a.png"/></svg>`, "<image>"},
		{`<svg><a href="https://example.com/">x</a></svg>`, "links to nothing outside"},
		{`<svg><use xlink:href="http://example.com/s.svg#a"/></svg>`, "links to nothing outside"},
		{`<svg onload="alert(1)"></svg>`, "event handlers"},
		{`<svg><g></svg>`, "not well-formed"},
		{`<svg></svg><svg></svg>`, "one <svg>"},
	} {
		_, err := NewFigure([]byte(c.doc), "")
		assert.ErrorContains(t, err, c.want, c.doc)
	}
	_, err := NewFigure([]byte(`<svg><use href="#a"/></svg>`), "")
	assert.NoError(t, err, "a fragment is inside the figure")
}
