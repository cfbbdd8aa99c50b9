package htmlreport

import (
	"fmt"
	"html/template"
	"strings"
)

// Sequence draws a request sequence in the fake server's notation
// ("M:429", "C:text": M a main request, C a compaction, then its answer)
// as a strip of small boxes, one a request: green for a reply (text,
// tool), red for an error status or a broken reply, orange for a
// truncated or empty one, purple for a compaction's reply; each box
// names its request on hover.
func Sequence(requests []string) template.HTML {
	const w, gap, h = 7, 2, 12
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="seq" width="%d" height="%d" role="img" aria-label="%d requests">`, max(len(requests)*(w+gap), 1), h, len(requests))
	for i, r := range requests {
		fmt.Fprintf(&b, `<rect class="%s" x="%d" y="0" width="%d" height="%d"><title>%d: %s</title></rect>`,
			answerClass(r), i*(w+gap), w, h, i+1, template.HTMLEscapeString(r))
	}
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// answerClass is a request's box colour by its answer.
func answerClass(req string) string {
	kind, answer, _ := strings.Cut(req, ":")
	switch {
	case answer == "text" || answer == "tool":
		if kind == "C" {
			return "compact"
		}
		return "ok"
	case answer == "trunc" || answer == "empty":
		return "other"
	}
	return "err"
}
