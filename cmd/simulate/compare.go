package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/loopsim/loopsim/htmlreport"
	"github.com/loopsim/loopsim/reports"
)

func init() {
	register(command{name: "compare", summary: "compare two run records (simulate -record): deltas with intervals, p-values, verdicts; exit 1 on a -fail-on regression", run: runCompare})
}

// Exit statuses of the compare subcommand.
const (
	compareOK         = 0 // no rule of -fail-on broken
	compareRegression = 1 // a significant change beyond a -fail-on threshold
	compareBadInput   = 2 // a record does not open, the records are not comparable, a flag is wrong, or an output cannot be written
)

func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the comparison as JSON instead of Markdown")
	out := fs.String("out", "", "also write compare.md, compare.json, report.html (the comparison as one HTML file) and the plots (PNG and SVG) to this `folder`")
	plots := fs.Bool("plots", true, "with -out: draw the plots (forest plot, terminal shares, ECDFs, paired differences)")
	failOn := fs.String("fail-on", "", "`rules` that make a significant change a regression (exit 1), comma separated:\nmetric>threshold or metric<threshold, the threshold in pp (rates), % (relative) or the metric's unit;\ne.g. 'failure_rate>+0.5pp,cost>+2%,new_violations>0'")
	force := fs.Bool("force", false, "compare settings that differ in more than the policy (model, workload, prices, limits)")
	fs.Usage = func() {
		fmt.Fprint(stderr, compareUsage)
		fs.PrintDefaults()
	}
	files, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return compareOK
	}
	if err != nil {
		return compareBadInput
	}
	if len(files) != 2 {
		fmt.Fprintf(stderr, "compare: want two records, BASE and CANDIDATE; got %d arguments\n", len(files))
		return compareBadInput
	}
	var rules []reports.Rule
	if *failOn != "" {
		if rules, err = reports.ParseRules(*failOn); err != nil {
			fmt.Fprintf(stderr, "compare: %v\n", err)
			return compareBadInput
		}
	}
	recs := make([]*reports.Record, 2)
	for i, f := range files {
		if recs[i], err = reports.Open(f); err != nil {
			fmt.Fprintf(stderr, "compare: %v\n", err)
			return compareBadInput
		}
	}
	cmp, err := reports.Compare(recs[0], recs[1], reports.Options{Force: *force})
	if err != nil {
		fmt.Fprintf(stderr, "compare: %v\n", err)
		return compareBadInput
	}
	regressions := cmp.Regressions(rules)
	var figures []reports.Figure
	if *out != "" {
		if figures, err = writeComparison(cmp, [2]*reports.Record{recs[0], recs[1]}, regressions, *out, *plots); err != nil {
			fmt.Fprintf(stderr, "compare: %v\n", err)
			return compareBadInput
		}
	}
	if *asJSON {
		err = cmp.WriteJSON(stdout, regressions)
	} else {
		err = cmp.WriteMarkdown(stdout, figures)
	}
	if err != nil {
		fmt.Fprintf(stderr, "compare: %v\n", err)
		return compareBadInput
	}
	if len(regressions) > 0 {
		for _, r := range regressions {
			fmt.Fprintf(stderr, "compare: regression: %s\n", r)
		}
		return compareRegression
	}
	return compareOK
}

// compareUsage is the compare subcommand's help, before its flags.
const compareUsage = `usage: simulate compare [flags] BASE CANDIDATE

Compares two run records written by simulate -record, setting by setting
(the records must hold the same settings in the same order): for each rate
and per-episode metric, base and candidate with 95% intervals, the delta
with its interval, a Holm-corrected p-value, an effect size and a verdict
(better, worse, changed, or ~ for no significant difference). Episodes are
paired by seed when both records played the same ones. It also lists the
scenarios whose behaviour changed between the two records' commits, and
invariant violations new in the candidate with their replay commands.

Exit status: 0 when no -fail-on rule is broken, 1 when one is (a
significant change beyond its threshold), 2 when a record does not open,
the records are not comparable, or a flag is wrong.

`

// writeComparison writes the plots, compare.md, compare.json and
// report.html (with the timelines of an episode under both records'
// settings, recs' rows choosing it) to dir.
func writeComparison(c *reports.Comparison, recs [2]*reports.Record, regressions []reports.Regression, dir string, plots bool) ([]reports.Figure, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	var figures []reports.Figure
	if plots {
		var err error
		if figures, err = c.Plot(dir); err != nil {
			return nil, err
		}
	}
	if err := writeFile(filepath.Join(dir, "compare.md"), func(w io.Writer) error { return c.WriteMarkdown(w, figures) }); err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(dir, "compare.json"), func(w io.Writer) error { return c.WriteJSON(w, regressions) }); err != nil {
		return nil, err
	}
	page, err := markdownPage(func(w io.Writer) error { return c.WriteMarkdown(w, figures) }, dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", reportHTML, err)
	}
	timelines, err := compareTimelines(c, recs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", reportHTML, err)
	}
	if len(timelines) > 0 {
		sec := page.Section("Episode timelines")
		sec.Blocks = append(append(sec.Blocks, htmlreport.Paragraph("An episode of each setting played by the base and by the candidate (the same seed), over simulated time: "+
			"the iterations, the requests and the tool calls as bars, faults, retries, compactions, transitions and the terminal as marks, the context size above; "+
			"hover for details, scroll sideways for the rest.")), timelines...)
	}
	if err := writePage(filepath.Join(dir, reportHTML), page); err != nil {
		return nil, err
	}
	return figures, nil
}
