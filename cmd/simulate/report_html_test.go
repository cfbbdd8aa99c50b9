package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/htmlreport"
	"github.com/loopsim/loopsim/properties/wirecheck"
)

// docsMatrixHTML is the matrix of docs/matrix.json as HTML, checked in.
const docsMatrixHTML = "../../docs/matrix.html"

// reportFixture is one HTML report the commands wrote, by name.
type reportFixture struct {
	name, path string
	// want are texts the report must show.
	want []string
	// focus, if set, is the heading of a section the browser test also
	// takes a screenshot of alone, named focusName.
	focus, focusName string
}

// checkAgentFixture is what simulate check-agent --cmd 'wireagent
// -breaks retry-after-honoured' -n 60 -seed 3 -timeout 20s -retry-after
// 30ms wrote (the test agent broken to ignore a retry-after: a finding,
// shrunk); TestCheckAgentBrokenAgentShrunk runs that and checks its
// report.html is written.
const checkAgentFixture = "testdata/check-agent-report.json"

// writeReports runs each command that writes an HTML report, small,
// into dir: the default simulation's summary, a comparison of two
// records, the matrix of docs/matrix.json, and check-agent's report of
// checkAgentFixture.
func writeReports(t *testing.T, dir string) []reportFixture {
	t.Helper()
	here, err := os.Getwd()
	require.NoError(t, err)
	docsMatrix := filepath.Join(here, "../../docs/matrix.json")
	t.Chdir(dir)
	sum := filepath.Join(dir, "summary")
	code, _, stderr := simulateArgs(t, "-n", "30", "-seed", "2", "-transcripts", "", "-calibrate", "0", "-progress=false", "-out", sum)
	require.Equal(t, simExitOK, code, stderr)

	// the pictures want a comparison with verdicts (300 episodes); the
	// checks, a fast one
	n := "40"
	if *screenshots {
		n = "300"
	}
	var records []string
	for _, cap := range []string{"8", "0"} {
		file := "cap-" + cap + ".parquet" // in dir: the report names it as given
		code, _, stderr := simulateArgs(t, "-n", n, "-seed", "3", "-profile", "claude-code", "-transcripts", "", "-plots=false", "-check=false",
			"-set", "workload.faults.stop_hook_block=0.3", "-set", "workload.faults.stop_hook_repeat=0.9", "-set", "workload.after_block.mean=0",
			"-set", "workload.after_block.max=0", "-set", "stop_hook_block_cap="+cap, "-out", filepath.Join(dir, "out-"+cap), "-record", file)
		require.Equal(t, simExitOK, code, stderr)
		records = append(records, file)
	}
	base, cand := records[0], records[1]
	cmp := filepath.Join(dir, "compare")
	code, _, stderr = simulateArgs(t, "compare", "-out", cmp, base, cand)
	require.Equal(t, compareOK, code, stderr)

	matrix := filepath.Join(dir, "matrix.html")
	code, _, stderr = simulateArgs(t, "matrix", "-from", docsMatrix, "-html", matrix)
	require.Equal(t, exitPass, code, stderr)

	ca := filepath.Join(dir, "check-agent")
	data, err := os.ReadFile(filepath.Join(here, checkAgentFixture))
	require.NoError(t, err)
	var res wirecheck.Result
	require.NoError(t, json.Unmarshal(data, &res))
	require.NoError(t, os.MkdirAll(ca, 0o755))
	_, err = writeCheckAgentHTML(&res, ca)
	require.NoError(t, err)

	return []reportFixture{
		{name: "summary", path: filepath.Join(sum, reportHTML), focus: "Episode timelines", focusName: "timeline",
			want: []string{"loopsim simulation", "Outcomes", `<figure class="plot"><svg`, "Episode timelines", `<svg class="tl-body"`}},
		{name: "compare", path: filepath.Join(cmp, reportHTML), focus: "Episode timelines", focusName: "timeline",
			want: []string{"loopsim comparison", "stop_hook_block_cap: 8 -&gt; 0", `<figure class="plot"><svg`, "Episode timelines", `<svg class="tl-body"`, ", candidate: episode "}},
		{name: "matrix", path: matrix, want: []string{"Released agents under faults", "rate-limited-forever", `<svg class="seq"`}},
		{name: "check-agent", path: filepath.Join(ca, reportHTML), focus: "Findings", focusName: "finding",
			want: []string{"check-agent: cmd", "Violation: retry-after-honoured (seed 3)", "The minimal schedule",
				`<svg class="tl-body"`, `class="tl-mark violation"`, "wirecheck-cmd.yaml", "Invariants broken"}},
	}
}

// TestReportsHTML: each command's report.html is self-contained
// (htmlreport.Check: nothing fetched, tags closed, every table sorts)
// and shows what its Markdown does, with its plots and timelines inline;
// then, with LOOPSIM_BROWSER=1, each opens in headless Chromium
// (checkInBrowser).
func TestReportsHTML(t *testing.T) {
	shots := "" // writeReports changes the working directory: docs/img found first
	if *screenshots {
		var err error
		shots, err = filepath.Abs(screenshotDir)
		require.NoError(t, err)
	}
	dir := t.TempDir()
	reports := writeReports(t, dir)
	for _, r := range reports {
		b, err := os.ReadFile(r.path)
		require.NoError(t, err, r.name)
		doc := string(b)
		assert.NoError(t, htmlreport.Check(doc), r.name)
		for _, w := range r.want {
			assert.Contains(t, doc, w, r.name)
		}
	}
	t.Run("browser", func(t *testing.T) {
		checkInBrowser(t, chromium(t), dir, shots, reports)
	})
}

// TestSummaryHTMLDeterministic: the same simulation writes the same
// report.html, byte for byte, whatever the workers (the plots are
// gonum's and left out: the timelines and tables are this code's).
func TestSummaryHTMLDeterministic(t *testing.T) {
	var docs []string
	for _, workers := range []string{"1", "3"} {
		dir := t.TempDir()
		code, _, stderr := simulateArgs(t, "-n", "20", "-seed", "5", "-transcripts", "", "-calibrate", "0", "-plots=false", "-progress=false", "-workers", workers, "-out", dir)
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
