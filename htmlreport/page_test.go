package htmlreport

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden pages in testdata/")

// sampleHTML is testdata/sample.md with a timeline section, as HTML.
func sampleHTML(t *testing.T) []byte {
	t.Helper()
	p := samplePage(t)
	p.Sections = append(p.Sections, Section{Heading: "Timeline", Blocks: []Block{
		TimelineBlock(FromTrace(exampleScenario, goldenTrace(t, exampleScenario))),
	}})
	var buf bytes.Buffer
	require.NoError(t, p.Write(&buf))
	return buf.Bytes()
}

// TestGoldenPage pins the page's body (the style and the script,
// before it, are the assets as they are).
func TestGoldenPage(t *testing.T) {
	doc := string(sampleHTML(t))
	body := strings.Index(doc, "<body>")
	require.Positive(t, body)
	got := []byte(doc[body:])
	path := filepath.Join("testdata", "sample.html")
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./htmlreport -update to write it")
	assert.Equal(t, string(want), string(got))
}

func TestPageDeterministic(t *testing.T) {
	assert.Equal(t, string(sampleHTML(t)), string(sampleHTML(t)))
}

// TestPageSelfContained: the page passes Check, holds its script, style
// and SVG inline, and every table has a header to click.
func TestPageSelfContained(t *testing.T) {
	doc := string(sampleHTML(t))
	require.NoError(t, Check(doc))
	assert.Equal(t, 1, strings.Count(doc, "<script>"), "one inline script")
	assert.Equal(t, 1, strings.Count(doc, "<style>"), "one inline style sheet")
	assert.NotContains(t, doc, "<script src")
	assert.Contains(t, doc, `<figure class="plot"><svg`)
	assert.Contains(t, doc, `<svg class="tl-body"`)
	assert.Equal(t, strings.Count(doc, "<table"), strings.Count(doc, `<table class="sortable">`))
	assert.Equal(t, strings.Count(doc, "<table"), strings.Count(doc, "<thead><tr><th"))
	assert.NotContains(t, doc, "<?xml", "the figure's prolog is dropped")
	assert.Contains(t, doc, "3 &lt; 4 &amp;", "text is escaped")
}

// TestCheckCatches: Check fails a document for each thing it guards.
func TestCheckCatches(t *testing.T) {
	ok := `<html><body><table class="sortable"><thead><tr><th>a</th></tr></thead><tbody></tbody></table><br><svg><path d=""/></svg></body></html>`
	require.NoError(t, Check(ok))
	for _, c := range []struct{ doc, want string }{
		{`<html><script src="https://cdn.example.com/x.js"></script></html>`, "outside the file"},
		{`<html><a href="http://example.com">x</a></html>`, "outside the file"},
		{`<html><a href="//example.com">x</a></html>`, "outside the file"},
		{`<style>body{background:url(https://example.com/a.png)}</style>`, "outside the file"},
		{`<style>@import "x.css";</style>`, "outside the file"},
		{`<html><link rel="stylesheet" href="x.css"></html>`, "<link>"},
		{`<html><img src="a.png"></html>`, "<img>"},
		{`<html><table><thead></thead></table></html>`, "do not sort"},
		{`<html><div><p>x</div></html>`, "closes <p>"},
		{`<html><div>`, "not closed"},
		{`<script>var a = 1;`, "not closed"},
	} {
		assert.ErrorContains(t, Check(c.doc), c.want, c.doc)
	}
}
