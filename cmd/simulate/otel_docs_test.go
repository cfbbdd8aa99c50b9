package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateOtelDocs = flag.Bool("update", false, "rewrite the exports checked in under docs/otel/ (go test ./cmd/simulate -run TestOtelDocs -update)")

// otelDocs holds the exports docs/otel.md shows, each made by the
// command written beside it there.
const otelDocs = "../../docs/otel"

// checkDoc compares got with the checked-in file name under docs/otel,
// rewriting it first with -update.
func checkDoc(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(otelDocs, name)
	if *updateOtelDocs {
		require.NoError(t, os.MkdirAll(otelDocs, 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "go test ./cmd/simulate -run TestOtelDocs -update writes it")
	assert.Equal(t, string(want), got, "%s is stale: go test ./cmd/simulate -run TestOtelDocs -update rewrites it", path)
}

// TestOtelDocsScenarioSpans makes the example of docs/otel.md with its
// commands: a library scenario's run as OTLP JSON (simulate run -otlp),
// and its span tree read back from that file (simulate spans), which
// docs/otel.md shows in full.
func TestOtelDocsScenarioSpans(t *testing.T) {
	otlp := filepath.Join(t.TempDir(), "run.otlp.json")
	code, out, errOut := runCLI(t, "run", "-run", "^cc-wire-answers-by-purpose$", "-otlp", otlp)
	require.Equal(t, exitPass, code, "stdout %s stderr %s", out, errOut)
	b, err := os.ReadFile(otlp)
	require.NoError(t, err)
	checkDoc(t, "cc-wire-answers-by-purpose.otlp.json", string(b))

	code, tree, errOut := runCLI(t, "spans", filepath.Join(otelDocs, "cc-wire-answers-by-purpose.otlp.json"))
	require.Equal(t, exitPass, code, errOut)
	checkDoc(t, "cc-wire-answers-by-purpose.spans.txt", tree)
	page, err := os.ReadFile("../../docs/otel.md")
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(page), "```\n"+tree+"```\n"), "docs/otel.md does not show the tree as simulate spans prints it:\n%s", tree)
}

// TestOtelDocsCounterexampleTimeline makes the timeline of a shrunk
// counterexample with the command docs/otel.md gives: the known finding
// escalation_after_recovery, found and shrunk by properties'
// TestKnownFindings and printed as a scenario, run with -timeline.
func TestOtelDocsCounterexampleTimeline(t *testing.T) {
	tl := filepath.Join(t.TempDir(), "timeline.json")
	code, out, errOut := runCLI(t, "run", "../../properties/testdata/scenarios/seed-escalation-after-recovery.yaml", "-timeline", tl)
	require.Equal(t, exitPass, code, "stdout %s stderr %s", out, errOut)
	b, err := os.ReadFile(tl)
	require.NoError(t, err)
	assert.Equal(t, 4, strings.Count(string(b), `"name":"=> max_output_tokens_escalate"`), "the counterexample escalates four times where once is allowed")
	checkDoc(t, "seed-escalation-after-recovery.timeline.json", string(b))
}
