package htmlreport_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/loopsim/loopsim/htmlreport"
)

// A report's Markdown read into a page, a section added, and the page
// written as one self-contained HTML file: the tables sort on a click,
// and nothing is fetched from the network (Check says so).
func ExampleFromMarkdown() {
	md := strings.Join([]string{
		"# Summary",
		"",
		"2,000 episodes per setting.",
		"",
		"| setting | failure rate |",
		"|---|---|",
		"| claude-code | 1.6% ± 0.6 |",
		"| seed | 4.1% ± 0.9 |",
	}, "\n")
	p, err := htmlreport.FromMarkdown(md, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	sec := p.Section("Requests")
	sec.Blocks = append(sec.Blocks, htmlreport.Paragraph("Each request a box: M:429, then M:text."))
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Title, "-", len(p.Intro), "blocks before the first section")
	for _, s := range p.Sections {
		fmt.Println("section:", s.Heading, len(s.Blocks), "blocks")
	}
	fmt.Println("self-contained:", htmlreport.Check(b.String()) == nil)

	// Output:
	// Summary - 2 blocks before the first section
	// section: Requests 1 blocks
	// self-contained: true
}
