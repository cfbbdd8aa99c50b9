package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/htmlreport"
)

// docsMatrixHTML is the matrix of docs/matrix.json as HTML, checked in.
const docsMatrixHTML = "../../docs/matrix.html"

// reportFixture is one HTML report the commands wrote, by name.
type reportFixture struct {
	name, path string
	// want are texts the report must show.
	want []string
}

// writeReports runs each command that writes an HTML report, small,
// into dir: the default simulation's summary, a comparison of two
// records, and the matrix of docs/matrix.json.
func writeReports(t *testing.T, dir string) []reportFixture {
	t.Helper()
	sum := filepath.Join(dir, "summary")
	code, _, stderr := simulateArgs(t, "-n", "60", "-seed", "2", "-transcripts", "", "-calibrate", "0", "-progress=false", "-out", sum)
	require.Equal(t, simExitOK, code, stderr)

	hooks := []string{"workload.faults.stop_hook_block=0.3", "workload.faults.stop_hook_repeat=0.9", "workload.after_block.mean=0", "workload.after_block.max=0"}
	base := recordRun(t, dir, "base.parquet", append(hooks, "stop_hook_block_cap=8")...)
	cand := recordRun(t, dir, "cand.parquet", append(hooks, "stop_hook_block_cap=0")...)
	cmp := filepath.Join(dir, "compare")
	code, _, stderr = simulateArgs(t, "compare", "-out", cmp, base, cand)
	require.Equal(t, compareOK, code, stderr)

	matrix := filepath.Join(dir, "matrix.html")
	code, _, stderr = simulateArgs(t, "matrix", "-from", "../../docs/matrix.json", "-html", matrix)
	require.Equal(t, exitPass, code, stderr)

	return []reportFixture{
		{"summary", filepath.Join(sum, reportHTML), []string{"loopsim simulation", "Outcomes", `<figure class="plot"><svg`, "Episode timelines", `<svg class="tl-body"`}},
		{"compare", filepath.Join(cmp, reportHTML), []string{"loopsim comparison", "stop_hook_block_cap: 8 -&gt; 0", `<figure class="plot"><svg`}},
		{"matrix", matrix, []string{"Released agents under faults", "rate-limited-forever", `<svg class="seq"`}},
	}
}

// TestReportsHTML: each command's report.html is self-contained
// (htmlreport.Check: nothing fetched, tags closed, every table sorts)
// and shows what its Markdown does, with its plots and timelines inline.
func TestReportsHTML(t *testing.T) {
	for _, r := range writeReports(t, t.TempDir()) {
		b, err := os.ReadFile(r.path)
		require.NoError(t, err, r.name)
		doc := string(b)
		assert.NoError(t, htmlreport.Check(doc), r.name)
		for _, w := range r.want {
			assert.Contains(t, doc, w, r.name)
		}
	}
}

// TestSummaryHTMLDeterministic: the same simulation writes the same
// report.html, byte for byte.
func TestSummaryHTMLDeterministic(t *testing.T) {
	var docs []string
	for _, workers := range []string{"1", "3"} {
		dir := t.TempDir()
		code, _, stderr := simulateArgs(t, "-n", "40", "-seed", "5", "-transcripts", "", "-calibrate", "0", "-progress=false", "-workers", workers, "-out", dir)
		require.Equal(t, simExitOK, code, stderr)
		b, err := os.ReadFile(filepath.Join(dir, reportHTML))
		require.NoError(t, err)
		docs = append(docs, string(b))
	}
	assert.Equal(t, docs[0], docs[1])
}

// TestDocsMatrixHTMLUpToDate: docs/matrix.html is what
// simulate matrix -from docs/matrix.json writes.
func TestDocsMatrixHTMLUpToDate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "matrix.html")
	code, _, stderr := simulateArgs(t, "matrix", "-from", "../../docs/matrix.json", "-html", path)
	require.Equal(t, exitPass, code, stderr)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	want, err := os.ReadFile(docsMatrixHTML)
	require.NoError(t, err)
	assert.True(t, string(got) == string(want), "docs/matrix.html is stale: go run ./cmd/simulate matrix -from docs/matrix.json -html docs/matrix.html")
}

func TestMatrixFromBadInput(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.json")
	require.NoError(t, os.WriteFile(junk, []byte(`{"cells": 3}`), 0o644))
	empty := filepath.Join(dir, "empty.json")
	require.NoError(t, os.WriteFile(empty, []byte(`{}`), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-from", filepath.Join(dir, "absent.json")}, "absent.json"},
		{[]string{"-from", junk}, "junk.json"},
		{[]string{"-from", empty}, "not a matrix.json"},
		{[]string{"-from", "../../docs/matrix.json", "scenarios/matrix"}, "name no scenarios"},
	} {
		code, _, stderr := simulateArgs(t, append([]string{"matrix"}, c.args...)...)
		assert.Equal(t, exitBadInput, code, c.args)
		assert.True(t, strings.Contains(stderr, c.want), "%v: %s", c.args, stderr)
	}
}
