package htmlreport

import (
	"errors"
	"html/template"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// samplePage reads testdata/sample.md, its image drawn from
// testdata/figure.svg.
func samplePage(t *testing.T) *Page {
	t.Helper()
	md, err := os.ReadFile(filepath.Join("testdata", "sample.md"))
	require.NoError(t, err)
	p, err := FromMarkdown(string(md), func(file, alt string) (*Figure, error) {
		assert.Equal(t, "figure.png", file)
		assert.Equal(t, "A figure.", alt)
		return ReadFigure(filepath.Join("testdata", "figure.svg"), "")
	})
	require.NoError(t, err)
	return p
}

func TestFromMarkdownStructure(t *testing.T) {
	p := samplePage(t)
	assert.Equal(t, "A sample report", p.Title)
	require.Len(t, p.Intro, 2)
	assert.Equal(t, KindCode, p.Intro[0].Kind)
	assert.Equal(t, "go run ./cmd/simulate -n 10", p.Intro[0].Code)
	assert.Equal(t, template.HTML(`An intro paragraph with <code>code</code>, <strong>bold</strong> and a link <span class="target">(https://example.com/x)</span> over two lines; 3 &lt; 4 &amp; &#34;quotes&#34;.`), p.Intro[1].HTML)

	require.Len(t, p.Sections, 2)
	nums := p.Sections[0]
	assert.Equal(t, "Numbers", nums.Heading)
	require.Len(t, nums.Blocks, 3)
	tb := nums.Blocks[0].Table
	require.NotNil(t, tb)
	assert.Equal(t, []Column{{Name: "setting"}, {Name: "completed", Numeric: true}, {Name: "cost (mean)", Numeric: true}, {Name: "note"}}, tb.Columns,
		"a right-aligned column of words is not numeric")
	require.Len(t, tb.Rows, 3)
	assert.Equal(t, template.HTML("c|pipe"), tb.Rows[2][0].HTML, "an escaped pipe stays in its cell")
	assert.Equal(t, template.HTML("<code>x|y</code>"), tb.Rows[2][3].HTML, "a pipe in code stays in its cell")
	assert.Equal(t, "bad", tb.Rows[1][3].Class, "a bold verdict 'worse' is marked bad")
	assert.Equal(t, "num", tb.Rows[0][1].Class)

	assert.Equal(t, KindHeading, nums.Blocks[1].Kind)
	list := nums.Blocks[2]
	require.Equal(t, KindList, list.Kind)
	require.Len(t, list.Items, 3)
	assert.Equal(t, template.HTML("first item, continued on the next line"), list.Items[0].HTML)
	require.Len(t, list.Items[1].Children, 1, "the fenced block belongs to the second item")
	assert.Equal(t, "- old\n+ new", list.Items[1].Children[0].Code)
	assert.Equal(t, template.HTML("third <br> item"), list.Items[2].HTML)

	plots := p.Sections[1]
	require.Len(t, plots.Blocks, 2)
	assert.Equal(t, KindFigure, plots.Blocks[0].Kind)
	assert.Equal(t, KindParagraph, plots.Blocks[1].Kind)
}

func TestFromMarkdownErrors(t *testing.T) {
	_, err := FromMarkdown("# t\n\n| a | b |\n| x | y |\n", nil)
	assert.ErrorContains(t, err, "delimiter row")

	_, err = FromMarkdown("# t\n\n![cap](plot.png)\n", func(string, string) (*Figure, error) { return nil, errors.New("no plot.svg") })
	assert.ErrorContains(t, err, "no plot.svg")

	p, err := FromMarkdown("# t\n\n![cap](plot.png)\n", nil)
	require.NoError(t, err)
	assert.Equal(t, template.HTML("[figure: plot.png]"), p.Intro[0].HTML, "without a figure function an image is named")
}

func TestInline(t *testing.T) {
	for _, c := range []struct{ md, want string }{
		{"plain & <tag>", "plain &amp; &lt;tag&gt;"},
		{"`a<b` and `c`", "<code>a&lt;b</code> and <code>c</code>"},
		{"**bold `code`** after", "<strong>bold <code>code</code></strong> after"},
		{"one<br>two", "one<br>two"},
		{`a \| b \* c`, "a | b * c"},
		{"unclosed `tick and **star", "unclosed `tick and **star"},
		{"[text](docs/x.md#y) end", `text <span class="target">(docs/x.md#y)</span> end`},
		{"[not a link] (x)", "[not a link] (x)"},
		{"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
	} {
		assert.Equal(t, template.HTML(c.want), Inline(c.md), c.md)
	}
}
