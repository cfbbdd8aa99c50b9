package sim

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// cvSources are the held-out sources of cv, in fold order.
func (cv *CrossValidation) cvSources() []string {
	out := make([]string, len(cv.Folds))
	for i, f := range cv.Folds {
		out[i] = f.Source
	}
	return out
}

// cell is the cell of source and figure, if measured.
func (cv *CrossValidation) cell(source, figure string) (CVCell, bool) {
	for _, c := range cv.Cells {
		if c.Source == source && c.Figure == figure {
			return c, true
		}
	}
	return CVCell{}, false
}

// WriteCVTable writes the cross-validation as a plain-text table: per
// figure, the error of each held-out source's prediction ("out" when the
// source lay outside the band of simulated users), the mean |error|, how
// many lay in the band and how many were within tolerance; then the
// summary sentence.
func WriteCVTable(w io.Writer, cv *CrossValidation, h *HeldOut) error {
	bw := bufio.NewWriter(w)
	srcs := cv.cvSources()
	fmt.Fprintf(bw, "  %-31s", "figure")
	for _, s := range srcs {
		fmt.Fprintf(bw, " %12.12s", s)
	}
	fmt.Fprintf(bw, " %11s %8s %10s\n", "mean |err|", "in band", "in tol.")
	for _, f := range cv.Figures() {
		fmt.Fprintf(bw, "  %-31s", f.Figure)
		for _, s := range srcs {
			text := "-"
			if c, ok := cv.cell(s, f.Figure); ok {
				text = cvError(c)
			}
			fmt.Fprintf(bw, " %12s", text)
		}
		fmt.Fprintf(bw, " %10.0f%% %8s %10s\n", 100*f.MeanAbsError, fmt.Sprintf("%d/%d", f.Inside, f.Sources),
			fmt.Sprintf("%d/%d", f.WithinTolerance, f.Sources))
	}
	fmt.Fprintln(bw, h.Sentence())
	return bw.Flush()
}

// cvError is a cell's relative error, marked when the real figure lay
// outside the band.
func cvError(c CVCell) string {
	s := fmt.Sprintf("%+.0f%%", 100*c.Error())
	if !c.Inside() {
		s += " out"
	}
	return s
}

// WriteCVReport writes the cross-validation as Markdown: what each fold
// held out and the population it fitted without it, every prediction
// with its band, and the summary per figure.
func WriteCVReport(w io.Writer, cv *CrossValidation, h *HeldOut) error {
	bw := bufio.NewWriter(w)
	kind := "one user (no population)"
	if cv.Population {
		kind = "a population fitted from the spread between the other sources"
	}
	fmt.Fprintf(bw, "# Leave-one-source-out cross-validation\n\n")
	fmt.Fprintf(bw, "Each source (the folder holding its logs) is held out once: the workload is fitted on the other sources, as %s, "+
		"and %d simulated users, each playing as many episodes as the source has user prompts and sharing one draw of the population (if any), "+
		"are measured as the source was. The prediction pools the users; the band is the 10th to 90th percentile of the figure from user to user.\n\n",
		kind, cv.Users)
	fmt.Fprintln(bw, h.Sentence())
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "## Folds")
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "| held out | sessions | calls | prompts | population fitted without it (start context, output, replies, tools, tool result) |")
	fmt.Fprintln(bw, "|---|---:|---:|---:|---|")
	for _, f := range cv.Folds {
		p := f.Population
		fmt.Fprintf(bw, "| %s | %d | %d | %d | %g, %g, %g, %g, %g |\n", f.Source, f.Sessions, f.Calls, f.Prompts, p.StartContext, p.Output,
			p.Replies, p.Tools, p.ToolResult)
	}
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "## Error per figure and source")
	fmt.Fprintln(bw)
	head := append([]string{"figure"}, cv.cvSources()...)
	head = append(head, "mean abs. error", "in band", "within tolerance")
	fmt.Fprintln(bw, "| "+strings.Join(head, " | ")+" |")
	fmt.Fprintln(bw, "|---"+strings.Repeat("|---:", len(head)-1)+"|")
	for _, f := range cv.Figures() {
		row := []string{f.Figure}
		for _, s := range cv.cvSources() {
			text := "-"
			if c, ok := cv.cell(s, f.Figure); ok {
				text = cvError(c)
			}
			row = append(row, text)
		}
		row = append(row, fmt.Sprintf("%.0f%%", 100*f.MeanAbsError), fmt.Sprintf("%d of %d", f.Inside, f.Sources),
			fmt.Sprintf("%d of %d", f.WithinTolerance, f.Sources))
		fmt.Fprintln(bw, "| "+strings.Join(row, " | ")+" |")
	}
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "\"out\": the source's figure lay outside the band of simulated users of its size.")
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "## Predictions")
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "| held out | figure | n | real | predicted | error | band (p10 to p90 of users) | in band |")
	fmt.Fprintln(bw, "|---|---|---:|---:|---:|---:|---|---|")
	for _, c := range cv.Cells {
		in := "yes"
		if !c.Inside() {
			in = "**no**"
		}
		fmt.Fprintf(bw, "| %s | %s | %d | %s | %s | %+.0f%% | %s to %s | %s |\n", c.Source, c.Figure, c.N, fitFigure(c.Real), fitFigure(c.Predicted),
			100*c.Error(), fitFigure(c.Low), fitFigure(c.High), in)
	}
	return bw.Flush()
}
