package htmlreport

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
	"time"
)

// The timeline's geometry, in pixels.
const (
	tlNamesWidth = 150
	tlAxisHeight = 20
	tlCountH     = 64
	tlMarksH     = 24
	tlLaneH      = 20
	// tlMaxWidth bounds the drawing's width; a tick is drawn
	// between tlMinTick and tlMaxTick pixels wide to fit it.
	tlMaxWidth = 24000
	tlMinTick  = 1.5
	tlMaxTick  = 9
	// tlGapTicks: a gap longer than this many ticks (a retry's delay) is
	// drawn shortened, on a log scale, with its length written over it.
	tlGapTicks = 8
	tlTickMS   = 1.0
)

// tlAxis maps simulated times to x: a tick of time per step, a longer
// gap (a retry's back-off) shortened to a log scale.
type tlAxis struct {
	x    map[time.Duration]float64
	gaps []tlGap
	w    float64
}

type tlGap struct {
	from, to time.Duration
	x0, x1   float64
}

// tlSlot is the width of one position of an ordinal timeline.
const tlSlot = 100

func newAxis(times []time.Duration, ordinal bool) *tlAxis {
	slices.Sort(times)
	times = slices.Compact(times)
	units := make([]float64, len(times))
	total := 0.0
	for i := 1; i < len(times); i++ {
		g := float64(times[i]-times[i-1]) / float64(time.Millisecond) / tlTickMS
		if g > tlGapTicks {
			g = tlGapTicks + 2*math.Log2(g/tlGapTicks)
		}
		units[i] = g
		total += g
	}
	px := float64(tlMaxTick)
	switch {
	case ordinal:
		px = tlSlot
	case total > 0:
		px = math.Max(tlMinTick, math.Min(tlMaxTick, tlMaxWidth/total))
	}
	a := &tlAxis{x: make(map[time.Duration]float64, len(times))}
	x := 8.0
	for i, t := range times {
		x += units[i] * px
		a.x[t] = x
		if i > 0 && times[i]-times[i-1] > tlGapTicks*time.Millisecond {
			a.gaps = append(a.gaps, tlGap{from: times[i-1], to: t, x0: a.x[times[i-1]], x1: x})
		}
	}
	a.w = x + 40
	return a
}

func (a *tlAxis) at(t time.Duration) float64 { return a.x[t] }

// SVG draws the timeline: the lane names (fixed) beside a drawing that
// scrolls horizontally, and the key of its colours.
func (tl *Timeline) SVG() template.HTML {
	var times []time.Duration
	times = append(times, 0, tl.End)
	for _, l := range tl.Lanes {
		for _, s := range l.Spans {
			times = append(times, s.Start, s.End)
		}
	}
	for _, m := range tl.Marks {
		times = append(times, m.At)
	}
	for _, p := range tl.Counter.Points {
		times = append(times, p.At)
	}
	ax := newAxis(times, tl.Ordinal)
	top := float64(tlAxisHeight)
	countTop := top
	if len(tl.Counter.Points) > 0 {
		top += tlCountH
	}
	marksTop := top
	lanesTop := marksTop + tlMarksH
	height := lanesTop + float64(len(tl.Lanes))*tlLaneH + 4

	var names, body strings.Builder
	fmt.Fprintf(&names, `<svg class="tl-names" width="%d" height="%.0f" role="img" aria-label="timeline lanes">`, tlNamesWidth, height)
	fmt.Fprintf(&body, `<svg class="tl-body" width="%.0f" height="%.0f" role="img" aria-label="%s">`, ax.w, height, esc(tl.Title))
	tl.drawAxis(&body, ax, height)
	if len(tl.Counter.Points) > 0 {
		tl.drawCounter(&names, &body, ax, countTop)
	}
	nameRow(&names, "events", marksTop, tlMarksH)
	for i, l := range tl.Lanes {
		y := lanesTop + float64(i)*tlLaneH
		nameRow(&names, l.Name, y, tlLaneH)
		for _, s := range l.Spans {
			tl.drawSpan(&body, ax, s, y)
		}
	}
	for _, m := range tl.Marks {
		tl.drawMark(&body, ax, m, marksTop, height)
	}
	names.WriteString("</svg>")
	body.WriteString("</svg>")
	return template.HTML(`<div class="tl">` + names.String() + `<div class="timeline-scroll" tabindex="0">` + body.String() + `</div></div>` + tl.key(ax))
}

func nameRow(b *strings.Builder, name string, y, h float64) {
	fmt.Fprintf(b, `<text x="4" y="%.1f" class="tl-name">%s</text>`, y+h/2+4, esc(name))
}

// drawAxis writes the time labels along the top, the gaps' lengths and
// a light rule across at each label.
func (tl *Timeline) drawAxis(b *strings.Builder, ax *tlAxis, height float64) {
	var times []time.Duration
	for t := range ax.x {
		times = append(times, t)
	}
	slices.Sort(times)
	last, apart := math.Inf(-1), 90.0
	if tl.Ordinal {
		apart = tlSlot - 1
	}
	for _, t := range times {
		x := ax.at(t)
		if x-last < apart || (tl.Ordinal && t >= tl.End) {
			continue
		}
		last = x
		fmt.Fprintf(b, `<line class="tl-rule" x1="%.1f" y1="%d" x2="%.1f" y2="%.0f"/><text class="tl-tick" x="%.1f" y="13">%s</text>`,
			x, tlAxisHeight-4, x, height, x+2, tl.at(t))
	}
	for _, g := range ax.gaps {
		fmt.Fprintf(b, `<rect class="tl-gap" x="%.1f" y="%d" width="%.1f" height="%.0f"><title>%s of simulated waiting, drawn shortened</title></rect>`,
			g.x0, tlAxisHeight, g.x1-g.x0, height-tlAxisHeight, formatOffset(g.to-g.from))
		if g.x1-g.x0 > 30 {
			fmt.Fprintf(b, `<text class="tl-gaplabel" x="%.1f" y="%d">+%s</text>`, (g.x0+g.x1)/2, tlAxisHeight+10, formatOffset(g.to-g.from))
		}
	}
}

// drawCounter draws the counter as steps, scaled to its largest value.
func (tl *Timeline) drawCounter(names, b *strings.Builder, ax *tlAxis, top float64) {
	most := 1
	for _, p := range tl.Counter.Points {
		most = max(most, p.Value)
	}
	fmt.Fprintf(names, `<text x="4" y="%.1f" class="tl-name">%s</text><text x="4" y="%.1f" class="tl-sub">max %s</text>`,
		top+tlCountH/2, esc(tl.Counter.Name), top+tlCountH/2+14, formatCount(most))
	y := func(v int) float64 { return top + tlCountH - 6 - float64(v)/float64(most)*(tlCountH-12) }
	var d strings.Builder
	for i, p := range tl.Counter.Points {
		x := ax.at(p.At)
		if i == 0 {
			fmt.Fprintf(&d, "M%.1f,%.1f", x, y(p.Value))
			continue
		}
		fmt.Fprintf(&d, "H%.1fV%.1f", x, y(p.Value))
	}
	fmt.Fprintf(&d, "H%.1f", ax.at(tl.End))
	fmt.Fprintf(b, `<path class="tl-counter" d="%s"/>`, d.String())
	for _, p := range tl.Counter.Points {
		fmt.Fprintf(b, `<circle class="tl-point" cx="%.1f" cy="%.1f" r="2"><title>%s at %s: %s</title></circle>`,
			ax.at(p.At), y(p.Value), esc(tl.Counter.Name), tl.at(p.At), formatCount(p.Value))
	}
}

func (tl *Timeline) drawSpan(b *strings.Builder, ax *tlAxis, s Span, y float64) {
	x0, x1 := ax.at(s.Start), ax.at(s.End)
	w := math.Max(x1-x0, 2)
	fmt.Fprintf(b, `<g class="tl-span %s"><rect x="%.1f" y="%.1f" width="%.1f" height="%d"><title>%s</title></rect>`,
		esc(s.Class), x0, y+2, w, tlLaneH-4, esc(s.Detail+tl.span(s)))
	if fit := int(w / 6.5); fit >= 3 {
		label := s.Label
		if len(label) > fit {
			label = label[:fit-1] + "…"
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f">%s</text>`, x0+3, y+tlLaneH/2+4, esc(label))
	}
	b.WriteString("</g>")
}

// drawMark draws an instant in the events row; a fault also as a line
// across the lanes.
func (tl *Timeline) drawMark(b *strings.Builder, ax *tlAxis, m Mark, top, height float64) {
	x := ax.at(m.At)
	if m.Class == "fault" {
		fmt.Fprintf(b, `<line class="tl-faultline" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.0f"/>`, x, top, x, height)
	}
	cy := top + tlMarksH/2
	fmt.Fprintf(b, `<path class="tl-mark %s" d="M%.1f,%.1fl5,6l-5,6l-5,-6z"><title>%s</title></path>`,
		esc(m.Class), x, cy-6, esc(m.Detail+"\nat "+tl.at(m.At)))
}

// tlKey are the classes the key explains, in order.
var tlKey = [][2]string{
	{"iteration", "iteration"}, {"request", "request"}, {"tool", "tool call"}, {"failed", "failed request or tool"},
	{"step", "a step that replies"}, {"faultstep", "a fault step"},
	{"fault", "fault"}, {"retry", "retry"}, {"compaction", "compaction"}, {"transition", "transition"},
	{"hook", "hook"}, {"fallback", "fallback"}, {"withheld", "withheld error"}, {"terminal", "terminal"}, {"violation", "invariant broken"},
}

// key is the legend of the classes the timeline uses.
func (tl *Timeline) key(ax *tlAxis) string {
	used := map[string]bool{}
	for _, l := range tl.Lanes {
		for _, s := range l.Spans {
			used[s.Class] = true
		}
	}
	for _, m := range tl.Marks {
		used[m.Class] = true
	}
	var b strings.Builder
	b.WriteString(`<p class="tl-key">`)
	for _, k := range tlKey {
		if used[k[0]] {
			fmt.Fprintf(&b, `<span><i class="sw %s"></i>%s</span> `, k[0], k[1])
		}
	}
	if len(ax.gaps) > 0 {
		b.WriteString(`<span><i class="sw gap"></i>waiting (a retry's delay), drawn shortened</span>`)
	}
	b.WriteString(`</p>`)
	return b.String()
}

// at is a time as the axis labels it: a simulated time, or a position.
func (tl *Timeline) at(t time.Duration) string {
	if tl.Ordinal {
		return fmt.Sprintf("#%d", t/time.Millisecond+1)
	}
	return formatOffset(t)
}

// span is a span's extent, for its hover text.
func (tl *Timeline) span(s Span) string {
	if tl.Ordinal {
		return ""
	}
	return "\nfrom " + formatOffset(s.Start) + " to " + formatOffset(s.End)
}

// formatOffset is a simulated time: "12 ms", "1.50 s".
func formatOffset(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// formatCount is a count of tokens: 950, 12.5k, 1.20M.
func formatCount(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func esc(s string) string { return template.HTMLEscapeString(s) }
