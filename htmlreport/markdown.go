package htmlreport

import (
	"fmt"
	"html/template"
	"strings"
)

// FigureFunc returns the figure for an image of the Markdown: file is
// its target (a PNG beside the Markdown), alt its text.
type FigureFunc func(file, alt string) (*Figure, error)

// FromMarkdown reads the Markdown loopsim's reports are written in into
// a page: "# " the title, "## " the sections, "### " sub-headings,
// paragraphs, "- " lists (an item's indented lines and fenced code
// belong to it), fenced and indented code, pipe tables (a column
// aligned right, "---:", is numeric) and images alone on a line, which
// figure turns into figures. Inline text is read by [Inline].
func FromMarkdown(md string, figure FigureFunc) (*Page, error) {
	r := &mdReader{lines: strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n"), figure: figure, page: &Page{}}
	if err := r.read(); err != nil {
		return nil, err
	}
	return r.page, nil
}

type mdReader struct {
	lines  []string
	i      int
	figure FigureFunc
	page   *Page
}

// add appends b to the current section, or to the intro before one.
func (r *mdReader) add(b Block) {
	if n := len(r.page.Sections); n > 0 {
		r.page.Sections[n-1].Blocks = append(r.page.Sections[n-1].Blocks, b)
		return
	}
	r.page.Intro = append(r.page.Intro, b)
}

func (r *mdReader) read() error {
	for r.i < len(r.lines) {
		line := r.lines[r.i]
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			r.i++
		case strings.HasPrefix(line, "# ") && r.page.Title == "" && len(r.page.Sections) == 0:
			r.page.Title = strings.TrimSpace(line[2:])
			r.i++
		case strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "# "):
			_, heading, _ := strings.Cut(line, " ")
			r.page.Sections = append(r.page.Sections, Section{Heading: strings.TrimSpace(heading)})
			r.i++
		case strings.HasPrefix(line, "###"):
			r.add(Block{Kind: KindHeading, HTML: Inline(strings.TrimSpace(strings.TrimLeft(line, "#")))})
			r.i++
		case strings.HasPrefix(trimmed, "```"):
			r.add(r.fence(indentOf(line)))
		case strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t"):
			r.add(r.indentedCode())
		case strings.HasPrefix(trimmed, "|"):
			t, err := r.table()
			if err != nil {
				return err
			}
			r.add(TableBlock(t))
		case strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* "):
			r.add(r.list())
		case strings.HasPrefix(trimmed, "!["):
			b, err := r.image(trimmed)
			if err != nil {
				return err
			}
			r.add(b)
		default:
			r.add(r.paragraph())
		}
	}
	return nil
}

func indentOf(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }

// fence reads a fenced code block whose fence is indented by indent.
func (r *mdReader) fence(indent int) Block {
	r.i++
	var code []string
	for r.i < len(r.lines) {
		line := r.lines[r.i]
		r.i++
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			break
		}
		code = append(code, strings.TrimPrefix(line, strings.Repeat(" ", min(indent, indentOf(line)))))
	}
	return Block{Kind: KindCode, Code: strings.Join(code, "\n")}
}

// indentedCode reads lines indented by four spaces or a tab.
func (r *mdReader) indentedCode() Block {
	var code []string
	for r.i < len(r.lines) {
		line := r.lines[r.i]
		switch {
		case strings.HasPrefix(line, "    "):
			code = append(code, line[4:])
		case strings.HasPrefix(line, "\t"):
			code = append(code, line[1:])
		default:
			return Block{Kind: KindCode, Code: strings.Join(code, "\n")}
		}
		r.i++
	}
	return Block{Kind: KindCode, Code: strings.Join(code, "\n")}
}

// paragraph reads lines up to a blank line or another block's start.
func (r *mdReader) paragraph() Block {
	var text []string
	for r.i < len(r.lines) {
		line := r.lines[r.i]
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "```") ||
			strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") || (len(text) > 0 && strings.HasPrefix(t, "![")) {
			break
		}
		text = append(text, t)
		r.i++
	}
	return Block{Kind: KindParagraph, HTML: Inline(strings.Join(text, " "))}
}

// list reads the items of a list: an item is its "- " line and the
// indented lines after it (text joins the item's, a fence is a code
// block under it), with blank lines between items allowed.
func (r *mdReader) list() Block {
	var items []Item
	for r.i < len(r.lines) {
		line := r.lines[r.i]
		if strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") {
			items = append(items, Item{})
			r.itemText(&items[len(items)-1], line[2:])
			r.i++
			continue
		}
		if strings.TrimSpace(line) == "" {
			// a blank line ends the list unless an item or an indented
			// line of the last item follows
			j := r.i
			for j < len(r.lines) && strings.TrimSpace(r.lines[j]) == "" {
				j++
			}
			if j < len(r.lines) && (strings.HasPrefix(r.lines[j], "- ") || strings.HasPrefix(r.lines[j], "* ") || indentOf(r.lines[j]) >= 2) {
				r.i = j
				continue
			}
			break
		}
		if indentOf(line) < 2 {
			break
		}
		it := &items[len(items)-1]
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			it.Children = append(it.Children, r.fence(indentOf(line)))
			continue
		}
		r.itemText(it, strings.TrimSpace(line))
		r.i++
	}
	return Block{Kind: KindList, Items: items}
}

func (r *mdReader) itemText(it *Item, text string) {
	if it.HTML != "" {
		it.HTML += " "
	}
	it.HTML += Inline(text)
}

// image reads "![alt](file)" as a figure.
func (r *mdReader) image(line string) (Block, error) {
	r.i++
	alt, file, rest, ok := link(line[1:])
	if !ok || strings.TrimSpace(rest) != "" {
		return Block{Kind: KindParagraph, HTML: Inline(line)}, nil
	}
	if r.figure == nil {
		return Block{Kind: KindParagraph, HTML: template.HTML("[figure: " + template.HTMLEscapeString(file) + "]")}, nil
	}
	f, err := r.figure(file, alt)
	if err != nil {
		return Block{}, fmt.Errorf("htmlreport: markdown line %d: %w", r.i, err)
	}
	return FigureBlock(f), nil
}

// table reads a pipe table: the header, the delimiter row, the rows.
func (r *mdReader) table() (*Table, error) {
	start := r.i + 1
	var rows [][]string
	for r.i < len(r.lines) && strings.HasPrefix(strings.TrimSpace(r.lines[r.i]), "|") {
		rows = append(rows, splitRow(r.lines[r.i]))
		r.i++
	}
	if len(rows) < 2 || !delimiterRow(rows[1]) {
		return nil, fmt.Errorf("htmlreport: markdown line %d: a table needs a header and a delimiter row", start)
	}
	t := &Table{}
	for j, name := range rows[0] {
		right := j < len(rows[1]) && strings.HasSuffix(rows[1][j], ":") && !strings.HasPrefix(rows[1][j], ":")
		t.Columns = append(t.Columns, Column{Name: stripInline(name), Numeric: right && numericColumn(rows[2:], j)})
	}
	for _, row := range rows[2:] {
		cells := make([]Cell, len(t.Columns))
		for j := range cells {
			if j < len(row) {
				cells[j] = Cell{HTML: Inline(row[j]), Class: cellClass(row[j])}
			}
		}
		t.AddRow(cells...)
	}
	return t, nil
}

// splitRow splits a table row at its unescaped pipes outside code.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	if strings.HasSuffix(line, "|") && !strings.HasSuffix(line, `\|`) {
		line = line[:len(line)-1]
	}
	var cells []string
	var cur strings.Builder
	code := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case c == '`':
			code = !code
			cur.WriteByte(c)
		case c == '|' && !code:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

func delimiterRow(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, ":-") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return true
}

// stripInline is a header's text without its Markdown marks.
func stripInline(s string) string { return strings.NewReplacer("`", "", "**", "").Replace(s) }

// numericColumn reports whether most of column j's cells start with a
// number (a Markdown table aligns text right as well).
func numericColumn(rows [][]string, j int) bool {
	n, num := 0, 0
	for _, row := range rows {
		if j >= len(row) || row[j] == "" || row[j] == "-" {
			continue
		}
		n++
		if c := strings.TrimLeft(row[j], "*`~$+-±[<>≤≥ "); c != "" && c[0] >= '0' && c[0] <= '9' {
			num++
		}
	}
	return n > 0 && 2*num > n
}

// cellClass marks a cell the Markdown puts in bold: "bad" when it
// starts with a bold "worse" or "no" (a verdict, a calibration figure
// out of tolerance), "good" with a bold "better", else "flag".
func cellClass(md string) string {
	switch {
	case !strings.Contains(md, "**"):
		return ""
	case strings.HasPrefix(md, "**worse") || strings.HasPrefix(md, "**no**"):
		return "bad"
	case strings.HasPrefix(md, "**better"):
		return "good"
	}
	return "flag"
}
