package main

import (
	"fmt"
	"html/template"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/htmlreport"
	"github.com/loopsim/loopsim/properties/wirecheck"
)

// checkAgentPage is a check-agent result as a page: the run and its
// limits, each finding (what it broke, the minimal schedule, the
// timeline of the minimal case's requests, the replay commands and the
// scenario file), the invariants by how many cases broke each, and
// every case played.
func checkAgentPage(res *wirecheck.Result) *htmlreport.Page {
	p := &htmlreport.Page{Title: "check-agent: " + res.Agent}
	if res.Against != "" {
		p.Title += " against " + res.Against
	}
	summary := fmt.Sprintf("Seed %d: %s searched, %d played in all (re-runs and shrinking included), %d not judged, in %.0f s; %s.",
		res.Seed, count(res.Searched, "case"), len(res.Cases), res.Errors, res.Seconds, count(len(res.Findings), "finding"))
	if res.Interrupted {
		summary += " Interrupted: the cases that finished are shown."
	}
	p.Intro = append(p.Intro, htmlreport.Paragraph(summary), htmlreport.TableBlock(limitsTable(res.Limits)))
	sec := p.Section("Findings")
	if len(res.Findings) == 0 {
		sec.Blocks = append(sec.Blocks, htmlreport.Paragraph("No case broke an invariant."))
	}
	for i := range res.Findings {
		sec.Blocks = append(sec.Blocks, findingBlocks(&res.Findings[i])...)
	}
	inv := p.Section("Invariants broken")
	inv.Blocks = append(inv.Blocks, htmlreport.TableBlock(brokenTable(res.Cases)))
	cases := p.Section("Cases")
	cases.Blocks = append(cases.Blocks,
		htmlreport.Paragraph("Every case played, in order: the search's, the re-runs of a violating schedule, the shrinking's candidates and the minimal schedule's replay. Each request a box (hover for its label): green a reply, orange a truncated or empty one, red an error status or a broken reply, purple a compaction's reply."),
		htmlreport.TableBlock(casesTable(res.Cases)))
	return p
}

// limitsTable is the limits the agent was held to.
func limitsTable(l wirecheck.Limits) *htmlreport.Table {
	t := &htmlreport.Table{Caption: "Limits", Columns: []htmlreport.Column{{Name: "limit"}, {Name: "value"}}}
	var afters []string
	for _, ms := range l.RetryAftersMS {
		afters = append(afters, fmt.Sprintf("%d ms", ms))
	}
	for _, r := range [][2]string{
		{"APIs", strings.Join(l.APIs, ", ")},
		{"model", fmt.Sprintf("%s: window %d, output cap %d", l.Model, l.ContextWindow, l.MaxOutputTokens)},
		{"retries in a row", strconv.Itoa(l.MaxRetries)},
		{"compactions in a row", strconv.Itoa(l.MaxCompactions)},
		{"retry-afters drawn", strings.Join(afters, ", ")},
		{"retry-after slack", fmt.Sprintf("%d ms", l.SlackMS)},
		{"session timeout", fmt.Sprintf("%.0f s", l.SessionTimeout)},
		{"steps in a schedule", strconv.Itoa(l.MaxSteps)},
		{"invariants skipped", strings.Join(l.Skip, ", ")},
	} {
		if r[1] != "" {
			t.AddRow(htmlreport.TextCell(r[0]), htmlreport.TextCell(r[1]))
		}
	}
	return t
}

// findingBlocks are one finding: what it broke, its shrinking, the
// minimal schedule and its requests' timeline, the replay commands and
// the scenario file.
func findingBlocks(f *wirecheck.Finding) []htmlreport.Block {
	kind := "Violation"
	if f.Flaky {
		kind = "Flaky (the re-run of the same schedule did not break it)"
	}
	out := []htmlreport.Block{{Kind: htmlreport.KindHeading, HTML: template.HTML(template.HTMLEscapeString(
		fmt.Sprintf("%s: %s (seed %d)", kind, strings.Join(f.Broken, ", "), f.Seed)))}}
	m := f.Minimal
	shrunk := fmt.Sprintf("The search's case had %s in %s; after %s the minimal schedule has %s in %s, served on the %s API. ",
		count(f.Found.Faults, "fault"), count(len(f.Found.Schedule), "step"), count(f.Shrinks, "shrinking run"), count(m.Faults, "fault"), count(len(m.Schedule), "step"), m.API)
	if f.Reproduced {
		shrunk += "Played once more, it broke the same again."
	} else if !f.Flaky {
		shrunk += "Played once more, it did not break the same: treat it as flaky."
	}
	out = append(out, htmlreport.Paragraph(shrunk))
	items := make([]htmlreport.Item, len(m.Violations))
	for i, v := range m.Violations {
		items[i] = htmlreport.Item{HTML: template.HTML(template.HTMLEscapeString(v))}
	}
	if len(items) > 0 {
		out = append(out, htmlreport.Block{Kind: htmlreport.KindList, Items: items})
	}
	out = append(out, htmlreport.TableBlock(scheduleTable(m.Schedule)), htmlreport.TimelineBlock(requestTimeline(m)))
	if len(f.Replay) > 0 {
		out = append(out, htmlreport.Paragraph("Replay:"), htmlreport.Block{Kind: htmlreport.KindCode, Code: strings.Join(f.Replay, "\n")})
	}
	if f.Scenario != "" {
		out = append(out, htmlreport.Paragraph("The minimal schedule as a scenario file ("+f.File+"):"), htmlreport.Block{Kind: htmlreport.KindCode, Code: f.Scenario})
	}
	return out
}

// scheduleTable is a schedule, a row a step.
func scheduleTable(steps []fakemodel.Step) *htmlreport.Table {
	t := &htmlreport.Table{Caption: "The minimal schedule", Columns: []htmlreport.Column{{Name: "step", Numeric: true}, {Name: "kind"}, {Name: "repeat", Numeric: true}, {Name: "details"}}}
	for i, s := range steps {
		repeat := strconv.Itoa(max(s.Repeat, 1))
		if s.Repeat == fakemodel.Forever {
			repeat = "forever"
		}
		t.AddRow(htmlreport.TextCell(strconv.Itoa(i+1)), htmlreport.TextCell(stepKind(s)), htmlreport.TextCell(repeat), htmlreport.TextCell(stepDetails(s)))
	}
	return t
}

func stepKind(s fakemodel.Step) string {
	if s.Kind == "" {
		return string(fakemodel.Reply)
	}
	return string(s.Kind)
}

func isFault(s fakemodel.Step) bool { return s.Kind != "" && s.Kind != fakemodel.Reply }

// stepDetails are a step's fields that shape its answer.
func stepDetails(s fakemodel.Step) string {
	var d []string
	if s.Status != 0 {
		d = append(d, fmt.Sprintf("status %d", s.Status))
	}
	if s.RetryAfterMS != 0 {
		d = append(d, fmt.Sprintf("retry-after %d ms", s.RetryAfterMS))
	}
	if s.InputTokens != 0 {
		d = append(d, fmt.Sprintf("input %d tokens", s.InputTokens))
	}
	if s.Text != "" {
		d = append(d, fmt.Sprintf("text %q", s.Text))
	}
	if n := len(s.ToolUses); n > 0 {
		d = append(d, fmt.Sprintf("%d tool calls", n))
	}
	return strings.Join(d, ", ")
}

// requestNumber finds "request N" in a violation's text.
var requestNumber = regexp.MustCompile(`\brequest (\d+)\b`)

// requestTimeline lays a case's requests out in order (the wire records
// no times in a result): each request, the step that answered it (a main
// request's; a compaction's answer is the compact script's), and each
// violation marked at the request it names.
func requestTimeline(c wirecheck.CaseResult) *htmlreport.Timeline {
	tl := &htmlreport.Timeline{Title: fmt.Sprintf("The minimal case's %d requests in order (exit %d, final event %q)", len(c.Requests), c.Exit, c.FinalEvent),
		Note:    "Positions, not times: the result keeps the order of the requests, not when they came. The step lane shows the schedule's step that answered each main request.",
		Ordinal: true, End: htmlreport.Slot(len(c.Requests))}
	reqs := htmlreport.Lane{Name: "requests"}
	steps := htmlreport.Lane{Name: "schedule step"}
	cs := c.Case()
	main := 0
	for i, r := range c.Requests {
		class := "request"
		if kind, answer, _ := strings.Cut(r, ":"); answer != "text" && answer != "tool" {
			class = "failed"
		} else if kind == "C" {
			class = "compaction"
		}
		reqs.Spans = append(reqs.Spans, htmlreport.Span{Start: htmlreport.Slot(i), End: htmlreport.Slot(i + 1), Label: r, Detail: fmt.Sprintf("request %d: %s", i+1, r), Class: class})
		if !strings.HasPrefix(r, "M") {
			continue
		}
		if s, ok := cs.StepFor(main); ok {
			class := "step"
			if isFault(s) {
				class = "faultstep"
			}
			steps.Spans = append(steps.Spans, htmlreport.Span{Start: htmlreport.Slot(i), End: htmlreport.Slot(i + 1), Label: stepKind(s),
				Detail: strings.TrimSpace(stepKind(s) + " " + stepDetails(s)), Class: class})
		}
		main++
	}
	tl.Lanes = []htmlreport.Lane{reqs, steps}
	for _, v := range c.Violations {
		at := len(c.Requests) - 1
		if m := requestNumber.FindStringSubmatch(v); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n >= 1 && n <= len(c.Requests) {
				at = n - 1
			}
		}
		name, _, _ := strings.Cut(v, ":")
		tl.Marks = append(tl.Marks, htmlreport.Mark{At: htmlreport.Slot(max(at, 0)), Label: name, Detail: v, Class: "violation"})
	}
	return tl
}

// brokenTable counts, per invariant, the cases that broke it.
func brokenTable(cases []wirecheck.CaseResult) *htmlreport.Table {
	t := &htmlreport.Table{Columns: []htmlreport.Column{{Name: "invariant"}, {Name: "cases", Numeric: true}, {Name: "of them in the search", Numeric: true}}}
	count := map[string][2]int{}
	var names []string
	for _, c := range cases {
		for _, b := range c.Broken {
			n, ok := count[b]
			if !ok {
				names = append(names, b)
			}
			n[0]++
			if c.Phase == wirecheck.PhaseSearch {
				n[1]++
			}
			count[b] = n
		}
	}
	slices.Sort(names)
	for _, name := range names {
		t.AddRow(htmlreport.TextCell(name), htmlreport.TextCell(strconv.Itoa(count[name][0])), htmlreport.TextCell(strconv.Itoa(count[name][1])))
	}
	if len(names) == 0 {
		t.AddRow(htmlreport.TextCell("none"), htmlreport.TextCell("0"), htmlreport.TextCell("0"))
	}
	return t
}

// casesTable is every case played, a row each.
func casesTable(cases []wirecheck.CaseResult) *htmlreport.Table {
	t := &htmlreport.Table{Columns: []htmlreport.Column{{Name: "#", Numeric: true}, {Name: "seed", Numeric: true}, {Name: "phase"}, {Name: "API"},
		{Name: "faults", Numeric: true}, {Name: "requests"}, {Name: "exit", Numeric: true}, {Name: "final event"}, {Name: "seconds", Numeric: true}, {Name: "broken"}}}
	for i, c := range cases {
		reqs := htmlreport.Cell{HTML: htmlreport.Sequence(c.Requests) + template.HTML(template.HTMLEscapeString(fmt.Sprintf(" %d", len(c.Requests)))),
			Sort: strconv.Itoa(len(c.Requests)), Class: "cells"}
		broken := htmlreport.TextCell(strings.Join(c.Broken, ", "))
		if c.Error != "" {
			broken = htmlreport.TextCell("not judged: " + c.Error)
		}
		if len(c.Broken) > 0 {
			broken.Class = "bad"
		}
		t.AddRow(htmlreport.TextCell(strconv.Itoa(i+1)), htmlreport.TextCell(strconv.FormatUint(c.Seed, 10)), htmlreport.TextCell(c.Phase), htmlreport.TextCell(c.API),
			htmlreport.TextCell(strconv.Itoa(c.Faults)), reqs, htmlreport.TextCell(strconv.Itoa(c.Exit)), htmlreport.TextCell(c.FinalEvent),
			htmlreport.TextCell(fmt.Sprintf("%.2f", c.Seconds)), broken)
	}
	return t
}

// writeCheckAgentHTML writes res as report.html in dir and returns its
// path.
func writeCheckAgentHTML(res *wirecheck.Result, dir string) (string, error) {
	path := filepath.Join(dir, reportHTML)
	if err := writePage(path, checkAgentPage(res)); err != nil {
		return "", fmt.Errorf("%s: %w", reportHTML, err)
	}
	return path, nil
}

// count is n things: "1 fault", "3 faults".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
