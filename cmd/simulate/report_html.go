package main

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopsim/loopsim/agents"
	"github.com/loopsim/loopsim/htmlreport"
	"github.com/loopsim/loopsim/reports"
	"github.com/loopsim/loopsim/sim"
)

// reportHTML is the name of the one-file HTML report written beside a
// command's Markdown.
const reportHTML = "report.html"

// svgFigures finds the SVG drawn beside each PNG a report's Markdown
// shows, in dir. The caption stays the Markdown's paragraph after the
// image.
func svgFigures(dir string) htmlreport.FigureFunc {
	return func(file, _ string) (*htmlreport.Figure, error) {
		return htmlreport.ReadFigure(filepath.Join(dir, strings.TrimSuffix(file, filepath.Ext(file))+".svg"), "")
	}
}

// markdownPage reads what write writes as Markdown into a page.
func markdownPage(write func(io.Writer) error, dir string) (*htmlreport.Page, error) {
	var md bytes.Buffer
	if err := write(&md); err != nil {
		return nil, err
	}
	return htmlreport.FromMarkdown(md.String(), svgFigures(dir))
}

// writePage writes p to path.
func writePage(path string, p *htmlreport.Page) error {
	return writeFile(path, p.Write)
}

// maxTimelineSettings caps the settings a summary draws a timeline for.
const maxTimelineSettings = 4

// maxTimelineEvents bounds the trace of an episode drawn as a timeline:
// a longer one is passed over for the next pick.
const maxTimelineEvents = 3000

// timelinePicks are the features whose sample episode a summary's
// timeline shows, the first the setting has: faults and recoveries
// before the longest run.
var timelinePicks = []sim.Feature{sim.RetryFeature, sim.OverflowFeature, sim.HookFeature, sim.AutoCompactFeature, sim.PeakFeature}

// writeSummaryHTML writes the summary as report.html in dir: the
// Markdown summary's text and tables, the plots as SVG, and the
// timeline of one episode per setting (its first violating episode,
// else its sample episode for the first feature of timelinePicks it
// showed), replayed.
func writeSummaryHTML(rep *sim.Report, dir string) error {
	p, err := markdownPage(rep.WriteMarkdown, dir)
	if err != nil {
		return fmt.Errorf("%s: %w", reportHTML, err)
	}
	sec := htmlreport.Section{Heading: "Episode timelines"}
	sec.Blocks = append(sec.Blocks, htmlreport.Paragraph("One episode of each setting over simulated time (one millisecond an event, a retry's delay as the loop waited it, drawn shortened): "+
		"the iterations, the requests and the tool calls as bars, faults, retries, compactions, transitions and the terminal as marks, the context size above. "+
		"Hover over a bar or a mark for its details; scroll sideways for the rest of the episode."))
	labels := rep.Result.Labels()
	for i, s := range rep.Result.Settings[:min(len(rep.Result.Settings), maxTimelineSettings)] {
		tl, err := settingTimeline(s, labels[i])
		if err != nil {
			return fmt.Errorf("%s: %w", reportHTML, err)
		}
		if tl != nil {
			sec.Blocks = append(sec.Blocks, htmlreport.TimelineBlock(tl))
		}
	}
	if len(sec.Blocks) > 1 {
		p.Sections = append(p.Sections, sec)
	}
	return writePage(filepath.Join(dir, reportHTML), p)
}

// settingTimeline replays the episode of s a summary shows and lays it
// out; nil when no episode of s fits.
func settingTimeline(s sim.SettingResult, label string) (*htmlreport.Timeline, error) {
	type pick struct {
		why   string
		index int
		seed  uint64
	}
	var picks []pick
	for _, ep := range s.Aggregate.Examples {
		if len(ep.Violations) > 0 {
			picks = append(picks, pick{"broke " + ep.Violations[0].Invariant, ep.Index, ep.Seed})
			break
		}
	}
	for _, f := range timelinePicks {
		if p := s.Aggregate.Picks[f]; p.OK {
			picks = append(picks, pick{"sample episode for " + f.String(), p.Index, p.Seed})
		}
	}
	for _, pk := range picks {
		res, _, err := sim.Replay(s.Setting, pk.seed)
		if err != nil {
			return nil, fmt.Errorf("timeline of %s episode %d: %w", label, pk.index, err)
		}
		if len(res.Trace) > maxTimelineEvents {
			continue
		}
		end := string(res.Terminal)
		if res.Halted {
			end = "halted by the iteration limit"
		}
		tl := htmlreport.FromTrace(fmt.Sprintf("%s: episode %d (%s): %s after %d iterations, %d requests",
			label, pk.index, pk.why, end, res.Stats.Iterations, res.Stats.Requests), res.Trace)
		tl.Note = fmt.Sprintf("Replay: go run ./cmd/simulate %s -replay %#x", s.Setting.ReplayFlags(), pk.seed)
		return tl, nil
	}
	return nil, nil
}

// matrixPage is the matrix as a page: the Markdown table and key, and a
// section drawing each cell's request sequence as a strip.
func matrixPage(m *agents.Matrix, title string) (*htmlreport.Page, error) {
	p, err := markdownPage(func(w io.Writer) error { return m.WriteMarkdown(w, title) }, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", reportHTML, err)
	}
	t := &htmlreport.Table{Columns: []htmlreport.Column{{Name: "scenario"}}}
	var present []string
	for _, a := range m.Agents {
		if a.Absent == "" {
			present = append(present, a.Name)
			t.Columns = append(t.Columns, htmlreport.Column{Name: a.Name})
		}
	}
	cells := map[[2]string]agents.Cell{}
	for _, c := range m.Cells {
		cells[[2]string{c.Scenario, c.Agent}] = c
	}
	for _, s := range m.Scenarios {
		row := []htmlreport.Cell{htmlreport.TextCell(s)}
		for _, a := range present {
			c, ok := cells[[2]string{s, a}]
			if !ok {
				row = append(row, htmlreport.TextCell("not run"))
				continue
			}
			row = append(row, sequenceCell(c))
		}
		t.AddRow(row...)
	}
	sec := p.Section("Request sequences")
	sec.Blocks = append(sec.Blocks,
		htmlreport.Paragraph("Each cell's requests in order, a box each (hover for its label): green a reply, orange a truncated or empty reply, red an error status or a broken reply, purple a compaction's reply; then the number of requests, the exit status, and the rules broken. A column sorts by the number of requests."),
		htmlreport.TableBlock(t))
	return p, nil
}

// sequenceCell is a matrix cell as a strip of its requests, sorting by
// their number.
func sequenceCell(c agents.Cell) htmlreport.Cell {
	end := fmt.Sprintf("exit %d", c.Exit)
	if c.TimedOut {
		end = "timeout"
	}
	text := fmt.Sprintf(" %d req, %s", len(c.Requests), end)
	if len(c.Broken) > 0 {
		text += ": " + strings.Join(c.Broken, "; ")
	}
	cell := htmlreport.Cell{HTML: htmlreport.Sequence(c.Requests) + template.HTML(template.HTMLEscapeString(text)), Sort: fmt.Sprint(len(c.Requests)), Class: "cells"}
	if len(c.Broken) > 0 {
		cell.Class += " bad"
	}
	return cell
}

// maxCompareTimelines caps the settings a comparison draws timelines for.
const maxCompareTimelines = 2

// compareTimelines are, for each of the first settings of a paired
// comparison, one episode played under the base and under the
// candidate, replayed from its seed: the first whose outcome changed
// (failed in one, not the other), else the one whose request count
// changed most (the lowest index among equals), of those whose traces
// are short enough to draw.
func compareTimelines(c *reports.Comparison, recs [2]*reports.Record) ([]htmlreport.Block, error) {
	var out []htmlreport.Block
	for i := range c.Settings[:min(len(c.Settings), maxCompareTimelines)] {
		sc := &c.Settings[i]
		if !sc.Paired {
			continue
		}
		base, cand := recs[0].Setting(i), recs[1].Setting(i)
		if len(base) != len(cand) {
			continue
		}
		order := make([]int, len(base))
		for j := range order {
			order[j] = j
		}
		score := func(j int) int64 {
			if base[j].Failed != cand[j].Failed {
				return math.MaxInt64
			}
			return max(base[j].Requests-cand[j].Requests, cand[j].Requests-base[j].Requests)
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(score(b), score(a)) })
		for _, j := range order[:min(len(order), 5)] {
			if base[j].Seed != cand[j].Seed {
				break
			}
			blocks, ok, err := pairTimelines(sc, base[j].Episode, base[j].Seed, score(j) == math.MaxInt64)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, blocks...)
				break
			}
		}
	}
	return out, nil
}

// pairTimelines replays episode index (seed) under sc's base and
// candidate; ok is false when either trace is too long to draw.
func pairTimelines(sc *reports.SettingComparison, index int64, seed uint64, changed bool) ([]htmlreport.Block, bool, error) {
	why := "the episode whose request count changed most"
	if changed {
		why = "an episode that failed in one and not the other"
	}
	var out []htmlreport.Block
	for _, side := range []struct {
		name string
		s    sim.Setting
	}{{"base", sc.Base}, {"candidate", sc.Candidate}} {
		res, _, err := sim.Replay(side.s, seed)
		if err != nil {
			return nil, false, fmt.Errorf("timeline of %s episode %d: %w", sc.Label, index, err)
		}
		if len(res.Trace) > maxTimelineEvents {
			return nil, false, nil
		}
		end := string(res.Terminal)
		if res.Halted {
			end = "halted by the iteration limit"
		}
		tl := htmlreport.FromTrace(fmt.Sprintf("%s, %s: episode %d (%s): %s after %d iterations, %d requests",
			sc.Label, side.name, index, why, end, res.Stats.Iterations, res.Stats.Requests), res.Trace)
		tl.Note = fmt.Sprintf("Replay: go run ./cmd/simulate %s -replay %#x", side.s.ReplayFlags(), seed)
		out = append(out, htmlreport.TimelineBlock(tl))
	}
	return out, true, nil
}
