package scenarios

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkGolden compares a trace with testdata/golden/NAME.jsonl, the
// authority, and its readable form with testdata/golden/NAME.txt, or
// rewrites both files with -update. A trace that differs is shown as a
// unified diff of the readable forms (the golden's and the run's), or of
// the JSON lines when the difference does not show in the readable form.
func checkGolden(t *testing.T, name string, tr loop.Trace) {
	t.Helper()
	var got, gotText bytes.Buffer
	require.NoError(t, tr.WriteJSONL(&got))
	require.NoError(t, loop.WriteReadable(&gotText, tr))
	path := filepath.Join(goldenDir, name+".jsonl")
	textPath := filepath.Join(goldenDir, name+".txt")
	if *update {
		require.NoError(t, os.WriteFile(path, got.Bytes(), 0o644))
		require.NoError(t, os.WriteFile(textPath, gotText.Bytes(), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no golden trace (run go test ./scenarios/... -update)")
	if !bytes.Equal(want, got.Bytes()) {
		t.Errorf("trace differs from %s; if the loop changed on purpose, check the change and rerun with -update:\n%s",
			path, traceDiff(t, path, want, got.Bytes()))
		return
	}
	wantText, err := os.ReadFile(textPath)
	require.NoError(t, err, "no golden readable trace (run go test ./scenarios/... -update)")
	if diff := unifiedDiff(textPath, "run", string(wantText), gotText.String()); diff != "" {
		t.Errorf("readable trace differs from %s, the JSON trace does not: rerun with -update:\n%s", textPath, diff)
	}
}

// traceDiff shows how the run's JSON Lines trace differs from the golden
// one: as a unified diff of their readable forms, or of the JSON lines
// when the golden does not read as a trace or the readable forms are
// equal (a field the readable form leaves out).
func traceDiff(t *testing.T, path string, want, got []byte) string {
	t.Helper()
	jsonDiff := unifiedDiff(path, "run", string(want), string(got))
	wantTrace, err := loop.ReadJSONL(bytes.NewReader(want))
	if err != nil {
		return fmt.Sprintf("(%s does not read as a trace: %v)\n%s", path, err, jsonDiff)
	}
	gotTrace, err := loop.ReadJSONL(bytes.NewReader(got))
	require.NoError(t, err, "the run's trace does not read back")
	var wantText, gotText bytes.Buffer
	require.NoError(t, loop.WriteReadable(&wantText, wantTrace))
	require.NoError(t, loop.WriteReadable(&gotText, gotTrace))
	if diff := unifiedDiff(path+" (readable)", "run (readable)", wantText.String(), gotText.String()); diff != "" {
		return diff
	}
	return "(the readable forms are equal; the JSON lines differ)\n" + jsonDiff
}

// TestGoldenFilesHaveScenarios refuses golden traces left behind by a
// renamed or deleted scenario.
func TestGoldenFilesHaveScenarios(t *testing.T) {
	names := map[string]bool{}
	for _, s := range loadLibrary(t) {
		names[s.Name] = true
	}
	entries, err := os.ReadDir(goldenDir)
	require.NoError(t, err)
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok {
			name, ok = strings.CutSuffix(e.Name(), ".txt")
		}
		assert.True(t, ok && names[name], "%s/%s belongs to no scenario of the library; delete it", goldenDir, e.Name())
	}
}

// TestTraceDiffReads: a golden trace that differs from the run is shown
// in the readable form, and as JSON lines when the difference does not
// show there.
func TestTraceDiffReads(t *testing.T) {
	path := filepath.Join(goldenDir, "seed-next-turn.jsonl")
	golden, err := os.ReadFile(path)
	require.NoError(t, err)

	changed := bytes.Replace(golden, []byte(`"input_tokens":9,"max_tokens"`), []byte(`"input_tokens":999,"max_tokens"`), 1)
	require.NotEqual(t, golden, changed, "the golden trace no longer holds the request this test changes")
	diff := traceDiff(t, path, changed, golden)
	assert.Contains(t, diff, "--- "+path+" (readable)\n+++ run (readable)\n")
	assert.Contains(t, diff, "\n-  request      main #1 to model: 1 messages (last user), 999 tokens in, max_tokens 8000\n")
	assert.Contains(t, diff, "\n+  request      main #1 to model: 1 messages (last user), 9 tokens in, max_tokens 8000\n")

	hidden := bytes.Replace(golden, []byte(`"blocks":2,`), []byte(`"blocks":3,`), 1)
	require.NotEqual(t, golden, hidden, "the golden trace no longer holds the response this test changes")
	diff = traceDiff(t, path, hidden, golden)
	assert.Contains(t, diff, "the readable forms are equal")
	assert.Contains(t, diff, `-{"kind":"response","purpose":"main","stop_reason":"tool_use","usage":{"input_tokens":9,"output_tokens":10},"blocks":3,`)

	diff = traceDiff(t, path, []byte("not a trace\n"), golden)
	assert.Contains(t, diff, "does not read as a trace")
	assert.Contains(t, diff, "-not a trace\n")
}
