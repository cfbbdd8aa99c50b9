package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/sim"
)

// writeSourceLog writes a Claude Code session log of the test's own
// making under dir/source/: calls whose output is scaled by outScale,
// a prompt every perPrompt calls, each call growing the context by
// what it wrote and a varying tool result.
func writeSourceLog(t *testing.T, dir, source string, calls, perPrompt int, outScale float64) {
	t.Helper()
	var b strings.Builder
	line := func(s string, args ...any) { fmt.Fprintf(&b, s+"\n", args...) }
	ctx := 20_000 + 1_000*len(source)
	line(`{"type":"user","message":{"role":"user","content":"start"}}`)
	for i := range calls {
		if i > 0 && i%perPrompt == 0 {
			line(`{"type":"user","message":{"role":"user","content":"next"}}`)
		}
		out := int(outScale * float64(30+(i*137)%600))
		line(`{"type":"assistant","message":{"id":"%s%d","model":"claude-fixture-1","content":[{"type":"tool_use","name":"Read","input":{}}],"usage":{"input_tokens":2,"cache_creation_input_tokens":0,"cache_read_input_tokens":%d,"output_tokens":%d}}}`,
			source, i, ctx, out)
		line(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}`)
		ctx += out + 100 + (i*211)%1_200
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, source), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, source, "session.jsonl"), []byte(b.String()), 0o644))
}

// TestCalibrateCrossValidates: calibrate -cv over three sources of
// different users prints the error of each figure per held-out source,
// writes cv.md and cv.json, puts the held-out figures in the workload
// file, and a simulation on that file shows them in its calibration
// table; -population=false fits one user.
func TestCalibrateCrossValidates(t *testing.T) {
	logs, out := t.TempDir(), t.TempDir()
	writeSourceLog(t, logs, "terse", 60, 4, 0.3)
	writeSourceLog(t, logs, "middling", 60, 10, 1)
	writeSourceLog(t, logs, "verbose", 60, 20, 4)
	code, stdout, stderr := simulateArgs(t, "calibrate", "-cv", "-n", "150", "-rounds", "1", "-users", "20", "-out", out, logs)
	require.Equal(t, simExitOK, code, stderr)
	assert.Contains(t, stdout, "population fitted from 3 sources (middling, terse, verbose)")
	assert.Contains(t, stdout, "leave-one-source-out")
	assert.Regexp(t, `output per call, median +[-+]\d+%`, stdout)
	assert.Contains(t, stdout, "Held out (leave-one-source-out over 3 sources, each fit a population of users")

	report, err := os.ReadFile(filepath.Join(out, "cv.md"))
	require.NoError(t, err)
	assert.Contains(t, string(report), "| figure | middling | terse | verbose | mean abs. error | in band | within tolerance |")
	fit, err := os.ReadFile(filepath.Join(out, "fit.md"))
	require.NoError(t, err)
	assert.Contains(t, string(fit), "## Population")

	var cv struct {
		HeldOut sim.HeldOut         `json:"held_out"`
		CV      sim.CrossValidation `json:"cross_validation"`
	}
	b, err := os.ReadFile(filepath.Join(out, "cv.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &cv))
	require.Len(t, cv.CV.Folds, 3)
	assert.Equal(t, []string{"middling", "terse", "verbose"}, cv.HeldOut.Sources)
	for _, c := range cv.CV.Cells {
		if c.Figure == "output per call, median" && c.Source == "verbose" {
			assert.Less(t, c.Error(), -0.5, "the verbose source predicted from the terse and middling ones: %+v", c)
		}
	}
	wf, err := sim.ReadWorkloadFile(filepath.Join(out, "workload.json"))
	require.NoError(t, err)
	require.NotNil(t, wf.HeldOut)
	assert.True(t, wf.Workload.Population.Output > 0, "no output spread fitted between a terse and a verbose source")
	assert.Equal(t, cv.HeldOut.Figures, wf.HeldOut.Figures)

	sims := t.TempDir()
	code, _, stderr = simulateArgs(t, "-workload", filepath.Join(out, "workload.json"), "-n", "20", "-plots=false", "-calibrate", "50", "-out", sims)
	require.Equal(t, simExitOK, code, stderr)
	summary, err := os.ReadFile(filepath.Join(sims, "summary.md"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "| held out: mean abs. error, in band |")
	assert.Regexp(t, `\| output per call, median( \|[^|\n]*){6} \| \d+%, \d of 3 \|\n`, string(summary), "the held-out cell of a calibration row")
	assert.Contains(t, string(summary), "Held out (leave-one-source-out over 3 sources")

	one := t.TempDir()
	code, stdout, stderr = simulateArgs(t, "calibrate", "-cv", "-population=false", "-n", "150", "-rounds", "1", "-users", "20", "-out", one, logs)
	require.Equal(t, simExitOK, code, stderr)
	assert.NotContains(t, stdout, "population fitted")
	assert.Contains(t, stdout, "each fit one user")
}

// TestCalibrateCrossValidationNeedsTwoSources: one folder of logs cannot
// be cross-validated; the fit is then one user.
func TestCalibrateCrossValidationNeedsTwoSources(t *testing.T) {
	logs := t.TempDir()
	writeSourceLog(t, logs, "only", 40, 5, 1)
	code, stdout, stderr := simulateArgs(t, "calibrate", "-cv", "-n", "100", "-rounds", "0", "-out", t.TempDir(), logs)
	assert.Equal(t, simExitBadInput, code)
	assert.Contains(t, stdout, "1 source (logs are grouped by the folder holding them)")
	assert.Contains(t, stderr, "needs at least two")
}
