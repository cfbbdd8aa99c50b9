package htmlreport

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
)

// Page is one report.
type Page struct {
	// Title heads the page and names it in the browser.
	Title string
	// Intro are the blocks before the first section.
	Intro []Block
	// Sections follow, each under its heading.
	Sections []Section
}

// Section is a part of a page under a heading.
type Section struct {
	Heading string
	Blocks  []Block
}

// BlockKind says what a [Block] holds.
type BlockKind string

// The kinds of block.
const (
	// KindParagraph: HTML, inline content only.
	KindParagraph BlockKind = "paragraph"
	// KindHeading: a sub-heading inside a section, HTML.
	KindHeading BlockKind = "heading"
	// KindList: Items, each inline HTML, with Children under it.
	KindList BlockKind = "list"
	// KindCode: Code, shown as written.
	KindCode BlockKind = "code"
	// KindTable: Table.
	KindTable BlockKind = "table"
	// KindFigure: Figure.
	KindFigure BlockKind = "figure"
	// KindTimeline: Timeline.
	KindTimeline BlockKind = "timeline"
)

// Block is one part of a section; Kind says which of its fields is set.
type Block struct {
	Kind BlockKind
	// HTML is a paragraph's or a heading's content (see [Inline]).
	HTML template.HTML
	// Items are a list's items.
	Items []Item
	// Code is a code block's text.
	Code string
	// Table, Figure and Timeline are set for their kinds.
	Table    *Table
	Figure   *Figure
	Timeline *Timeline
}

// Item is one item of a list: its text and the blocks under it (a code
// block indented below it).
type Item struct {
	HTML     template.HTML
	Children []Block
}

// Paragraph is a paragraph block of plain text.
func Paragraph(text string) Block {
	return Block{Kind: KindParagraph, HTML: template.HTML(template.HTMLEscapeString(text))}
}

// TableBlock is a block holding t.
func TableBlock(t *Table) Block { return Block{Kind: KindTable, Table: t} }

// FigureBlock is a block holding f.
func FigureBlock(f *Figure) Block { return Block{Kind: KindFigure, Figure: f} }

// TimelineBlock is a block holding tl.
func TimelineBlock(tl *Timeline) Block { return Block{Kind: KindTimeline, Timeline: tl} }

//go:embed assets/page.html.tmpl
var pageTemplate string

//go:embed assets/report.css
var reportCSS string

//go:embed assets/report.js
var reportJS string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"css":         func() template.CSS { return template.CSS(reportCSS) },
	"js":          func() template.JS { return template.JS(reportJS) },
	"timelineSVG": func(tl *Timeline) template.HTML { return tl.SVG() },
	"svg":         func(f *Figure) template.HTML { return f.svg },
}).Parse(pageTemplate))

// Write writes the page as one HTML document to w.
func (p *Page) Write(w io.Writer) error {
	var buf bytes.Buffer
	if err := page.Execute(&buf, p); err != nil {
		return fmt.Errorf("htmlreport: page %q: %w", p.Title, err)
	}
	if _, err := buf.WriteTo(w); err != nil {
		return fmt.Errorf("htmlreport: write page %q: %w", p.Title, err)
	}
	return nil
}

// Section returns the section headed heading, adding it at the end when
// the page has none.
func (p *Page) Section(heading string) *Section {
	for i := range p.Sections {
		if p.Sections[i].Heading == heading {
			return &p.Sections[i]
		}
	}
	p.Sections = append(p.Sections, Section{Heading: heading})
	return &p.Sections[len(p.Sections)-1]
}
