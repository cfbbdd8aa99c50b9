package sim

import (
	"bufio"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/loopsim/loopsim/transcript"
)

// PlotQQ draws one quantile-quantile plot per distribution of the fit
// that both sides measured: the real quantile against the simulated one
// at 99 probabilities, with the diagonal where they agree, on log axes
// for the token sizes. It writes dir/qq-NAME.png and returns the files
// written, in the order of fit.Distances.
func PlotQQ(dir string, fit *Fit) ([]string, error) {
	var files []string
	for _, d := range fitDists {
		x, y := d.sample(&fit.Real).Sorted(), d.sample(&fit.Simulated).Sorted()
		if len(x) == 0 || len(y) == 0 {
			continue
		}
		counts := d.name == "tools per call" // has zeros: linear axes
		var pts plotter.XYs
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := 1; i < 100; i++ {
			p := float64(i) / 100
			qx, qy := stat.Quantile(p, stat.Empirical, x, nil), stat.Quantile(p, stat.Empirical, y, nil)
			if !counts && (qx <= 0 || qy <= 0) {
				continue
			}
			pts = append(pts, plotter.XY{X: qx, Y: qy})
			lo, hi = min(lo, qx, qy), max(hi, qx, qy)
		}
		if len(pts) == 0 {
			continue
		}
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s: quantiles, real (n=%d) vs simulated (n=%d)", d.name, len(x), len(y))
		p.X.Label.Text = "real"
		p.Y.Label.Text = "simulated"
		if !counts && hi/lo > 20 {
			p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
			p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
		}
		pad := (hi - lo) * 0.05
		if p.X.Scale != nil {
			if _, isLog := p.X.Scale.(plot.LogScale); !isLog {
				lo, hi = lo-pad, hi+pad
			}
		}
		lo = max(lo, 0)
		if _, isLog := p.X.Scale.(plot.LogScale); isLog {
			lo = max(lo, 1)
		}
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
		diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
		if err != nil {
			return files, fmt.Errorf("qq %s: %w", d.name, err)
		}
		diag.Color = color.Gray{Y: 150}
		diag.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return files, fmt.Errorf("qq %s: %w", d.name, err)
		}
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Radius = vg.Points(2)
		sc.GlyphStyle.Color = color.RGBA{R: 31, G: 119, B: 180, A: 255}
		p.Add(diag, sc)
		p.Legend.Add("percentiles 1 to 99", sc)
		p.Legend.Add("equal", diag)
		p.Legend.Top, p.Legend.Left = true, true
		file := "qq-" + strings.ReplaceAll(d.name, " ", "-") + ".png"
		if err := p.Save(14*vg.Centimeter, 12*vg.Centimeter, filepath.Join(dir, file)); err != nil {
			return files, fmt.Errorf("qq %s: %w", d.name, err)
		}
		files = append(files, file)
	}
	return files, nil
}

// WriteReadReport writes what the reader found in each session log: its
// format and model, what it counted, the lines it skipped and why.
func WriteReadReport(w io.Writer, sessions []*transcript.Session) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "| log | format | model | lines | calls | prompts | compactions | injected user lines | malformed | foreign | subagent lines |")
	fmt.Fprintln(bw, "|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|")
	for _, s := range sessions {
		var calls, prompts, compactions int
		for _, e := range s.Events {
			switch e.Kind {
			case transcript.EventCall:
				calls++
			case transcript.EventPrompt:
				prompts++
			case transcript.EventCompaction:
				compactions++
			}
		}
		var inj []string
		for _, k := range transcript.InjectedKinds() {
			if n := s.Injected[k]; n > 0 {
				inj = append(inj, fmt.Sprintf("%d %s", n, k))
			}
		}
		format := string(s.Format)
		if format == "" {
			format = "unknown (no line of a known format)"
		}
		bad := func(n int) string {
			if n > 0 && s.FirstBad > 0 {
				return fmt.Sprintf("%d (first: line %d)", n, s.FirstBad)
			}
			return fmt.Sprint(n)
		}
		fmt.Fprintf(bw, "| %s | %s | %s | %d | %d | %d | %d | %s | %s | %s | %d |\n", s.Name, format, s.Model(), s.Lines, calls, prompts,
			compactions, strings.Join(inj, ", "), bad(s.Malformed), bad(s.Foreign), s.Sidechain)
	}
	return bw.Flush()
}

// WriteFitReport writes the fit as Markdown: the fitted parameters, the
// distance per distribution, the calibration figures real against
// simulated, and the QQ plots (files under the report's folder).
func WriteFitReport(w io.Writer, fit *Fit, sessions []*transcript.Session, qq []string) error {
	bw := bufio.NewWriter(w)
	wl := fit.Setting.Workload
	fmt.Fprintf(bw, "# Workload fitted to %d session logs\n\n", len(sessions))
	fmt.Fprintf(bw, "Simulated under %s against %s (window %d, output cap %d).\n\n", fit.Setting.Profile(), fit.Setting.Model.Name,
		fit.Setting.Model.ContextWindow, fit.Setting.Model.MaxOutputTokens)
	fmt.Fprintln(bw, "## Logs read")
	fmt.Fprintln(bw)
	if err := WriteReadReport(bw, sessions); err != nil {
		return err
	}
	fmt.Fprintln(bw, "\nMalformed lines are not JSON; foreign lines are JSON of no kind the log's format knows. Both are skipped, the rest of the log is read.")
	fmt.Fprintln(bw, "Injected user lines (task notifications, hook output, command echoes, interruption notes, meta lines) are not counted as prompts.")
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "## Parameters")
	fmt.Fprintln(bw)
	fmt.Fprintf(bw, "- start_context: uniform %d to %d\n", wl.StartContext.Min, wl.StartContext.Max)
	fmt.Fprintf(bw, "- output: log-normal, median %g, sigma %g\n", wl.Output.Median, wl.Output.Sigma)
	fmt.Fprintf(bw, "- tool_result: log-normal, median %g, sigma %g\n", wl.ToolResult.Median, wl.ToolResult.Sigma)
	fmt.Fprintf(bw, "- tools: %d plus geometric, mean %.3g\n", wl.Tools.Min, wl.Tools.Mean)
	fmt.Fprintf(bw, "- replies: log-normal, median %g, sigma %g\n", wl.Replies.Median, wl.Replies.Sigma)
	fmt.Fprintf(bw, "- summary: log-normal, median %g, sigma %g\n", wl.Summary.Median, wl.Summary.Sigma)
	p := wl.Population
	fmt.Fprintf(bw, "- population (spread of each session's log factor): start_context %g, output %g, replies %g, tools %g, tool_result %g\n\n",
		p.StartContext, p.Output, p.Replies, p.Tools, p.ToolResult)
	fmt.Fprintln(bw, "Fitted from the logs: "+strings.Join(fit.Fitted, "; ")+".")
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "Kept from the base workload (assumptions): "+strings.Join(fit.Kept, "; ")+".")
	fmt.Fprintln(bw)
	writeSpreads(bw, fit.Spreads)
	fmt.Fprintln(bw, "## Distance per distribution")
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "Two-sample Kolmogorov-Smirnov distance (gonum `stat.KolmogorovSmirnov`) between the real values and a simulation of the fitted workload measured the same way; above the 5% critical value the samples are distinguishable. Percentiles p10 / p50 / p90 / p99.")
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "| distribution | n real | n simulated | KS distance | 5% critical | distinguishable | real percentiles | simulated percentiles |")
	fmt.Fprintln(bw, "|---|---:|---:|---:|---:|---|---|---|")
	for _, d := range fit.Distances {
		if d.Real == 0 || d.Simulated == 0 {
			fmt.Fprintf(bw, "| %s | %d | %d | - | - | not measured | | |\n", d.Name, d.Real, d.Simulated)
			continue
		}
		verdict := "no"
		if d.Differs() {
			verdict = "**yes**"
		}
		fmt.Fprintf(bw, "| %s | %d | %d | %.3f | %.3f | %s | %s | %s |\n", d.Name, d.Real, d.Simulated, d.KS, d.Critical, verdict, quantiles(d.RealQ), quantiles(d.SimQ))
	}
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "## Calibration figures")
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "| figure | n real | real | simulated | difference | tolerance | within |")
	fmt.Fprintln(bw, "|---|---:|---:|---:|---:|---:|---|")
	for _, r := range Compare(&fit.Real, &fit.Simulated) {
		ok := "yes"
		if !r.OK {
			ok = "**no**"
		}
		fmt.Fprintf(bw, "| %s | %d | %s | %s | %+.1f%% | ±%.0f%% | %s |\n", r.Figure, r.N, fitFigure(r.Real), fitFigure(r.Simulated), 100*r.Diff(), 100*r.Tolerance, ok)
	}
	if len(qq) > 0 {
		fmt.Fprintln(bw, "\n## Quantile-quantile plots")
		fmt.Fprintln(bw)
		fmt.Fprintln(bw, "Each point is one percentile (1st to 99th): real on x, simulated on y; on the dashed diagonal they agree.")
		fmt.Fprintln(bw)
		for _, f := range qq {
			fmt.Fprintf(bw, "![%s](%s)\n\n", f, f)
		}
	}
	return bw.Flush()
}

func quantiles(q [4]float64) string {
	parts := make([]string, len(q))
	for i, v := range q {
		parts[i] = FormatTokens(v)
	}
	return strings.Join(parts, " / ")
}

// fitFigure writes a calibration figure: two decimals below 100, else a
// token count.
func fitFigure(x float64) string {
	if x < 100 {
		return fmt.Sprintf("%.2f", x)
	}
	return FormatTokens(x)
}

// writeSpreads writes the estimates of the population's spreads, if any.
func writeSpreads(w io.Writer, spreads []Spread) {
	if len(spreads) == 0 {
		return
	}
	fmt.Fprintln(w, "## Population")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Each source's location on the log scale of the parameter, the variance of the locations between sources, the part of it the sources' own sampling explains, and the spread fitted (the square root of the rest). Sessions of one source share their parameters; the fit draws the rest within a session so that the sessions pooled match the logs pooled.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| parameter | measure | locations | between | sampling | spread |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|")
	for _, s := range spreads {
		var locs []string
		for _, l := range s.Locations {
			locs = append(locs, fmt.Sprintf("%s %g (n=%d)", l.Source, l.Log, l.N))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %g | %g | %g |\n", s.Parameter, s.Measure, strings.Join(locs, ", "), s.Between, s.Sampling, s.Sigma)
	}
	fmt.Fprintln(w)
}
