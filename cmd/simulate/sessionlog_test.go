package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeSessionLog writes a Claude Code session log of the test's own
// making: prompts of a few calls each, context growing by a varying
// amount, a compaction, an injected task notification, one malformed
// and one foreign line. It returns the log's path.
func writeSessionLog(t *testing.T, dir string, calls int) string {
	t.Helper()
	var b strings.Builder
	ctx := 24_000
	line := func(s string, args ...any) { fmt.Fprintf(&b, s+"\n", args...) }
	line(`{"type":"user","message":{"role":"user","content":"fix the parser"}}`)
	for i := range calls {
		if i > 0 && i%12 == 0 {
			line(`{"type":"user","message":{"role":"user","content":"now the next one"}}`)
		}
		if i == calls/2 {
			line(`{"type":"user","message":{"role":"user","content":"<task-notification><task-id>b1</task-id></task-notification>"}}`)
		}
		if i == calls*3/4 {
			line(`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":%d}}`, ctx)
			ctx = 30_000
		}
		out := 40 + (i*137)%900
		tool := `{"type":"tool_use","name":"Read","input":{"file_path":"f%d.go"}}`
		line(`{"type":"assistant","message":{"id":"m%d","model":"claude-fixture-1","content":[`+tool+`],"usage":{"input_tokens":2,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}}}`,
			i, i%7, 300+(i*53)%700, ctx, out)
		line(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}`)
		ctx += 300 + (i*53)%700 + out + (i*211)%1500
		if i == 5 {
			line(`{"type":"assistant","message":`)
			line(`{"kind":"not a log line"}`)
		}
	}
	path := filepath.Join(dir, "session.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// TestCalibrateAndRunTheWorkload: calibrate reads a log (its bad lines
// counted, not fatal), writes a workload file, a fit report and QQ
// plots; simulate -workload runs on the file.
func TestCalibrateAndRunTheWorkload(t *testing.T) {
	logs, out := t.TempDir(), t.TempDir()
	writeSessionLog(t, logs, 120)
	code, stdout, stderr := simulateArgs(t, "calibrate", "-n", "200", "-rounds", "1", "-out", out, logs)
	require.Equal(t, simExitOK, code, stderr)
	require.Contains(t, stdout, "1 malformed and 1 foreign lines skipped")
	require.Contains(t, stdout, "1 injected user lines")
	require.Contains(t, stdout, "fitted on 120 calls")
	report, err := os.ReadFile(filepath.Join(out, "fit.md"))
	require.NoError(t, err)
	require.Contains(t, string(report), "Kolmogorov-Smirnov")
	require.Contains(t, string(report), "| output per call | ")
	for _, f := range []string{"workload.json", "qq-output-per-call.png", "qq-growth-per-call.png"} {
		st, err := os.Stat(filepath.Join(out, f))
		require.NoError(t, err, f)
		require.Positive(t, st.Size(), f)
	}
	sims := t.TempDir()
	code, stdout, stderr = simulateArgs(t, "-workload", filepath.Join(out, "workload.json"), "-profile", "claude-code", "-n", "40",
		"-plots=false", "-calibrate", "100", "-out", sims)
	require.Equal(t, simExitOK, code, stderr)
	require.Contains(t, stdout, "claude-code")
	summary, err := os.ReadFile(filepath.Join(sims, "summary.md"))
	require.NoError(t, err)
	require.Contains(t, string(summary), "-workload "+filepath.Join(out, "workload.json"))
}

func TestCalibrateBadInput(t *testing.T) {
	code, _, stderr := simulateArgs(t, "calibrate")
	require.Equal(t, simExitBadInput, code)
	require.Contains(t, stderr, "give the session logs")
	code, _, stderr = simulateArgs(t, "calibrate", filepath.Join(t.TempDir(), "missing"))
	require.Equal(t, simExitBadInput, code)
	require.Contains(t, stderr, "missing")
	empty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(empty, "x.jsonl"), []byte("not json\n{\"a\":1}\n"), 0o644))
	code, stdout, stderr := simulateArgs(t, "calibrate", empty)
	require.Equal(t, simExitBadInput, code)
	require.Contains(t, stdout, "1 malformed and 1 foreign lines skipped")
	require.Contains(t, stderr, "no calls to fit")
}

func TestWorkloadFileErrors(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"unknown.json": `{"version":1,"workload":{},"extra":1}`,
		"future.json":  `{"version":9}`,
		"invalid.json": `{"version":1,"workload":{"output":{"median":-1}}}`,
	} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
		code, _, stderr := simulateArgs(t, "-workload", path, "-n", "1")
		require.Equal(t, simExitBadInput, code, name)
		require.Contains(t, stderr, path, name)
	}
}
