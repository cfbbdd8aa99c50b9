package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordRun records a small simulation with the given -set overrides.
func recordRun(t *testing.T, dir, name string, sets ...string) string {
	t.Helper()
	file := filepath.Join(dir, name)
	args := []string{"-n", "150", "-seed", "3", "-profile", "claude-code", "-transcripts", "", "-plots=false", "-check=false",
		"-out", filepath.Join(dir, "out-"+name), "-record", file}
	for _, s := range sets {
		args = append(args, "-set", s)
	}
	code, _, stderr := simulateArgs(t, args...)
	require.Equal(t, simExitOK, code, stderr)
	return file
}

// TestCompareExitCodes: 0 without a broken rule, 1 when a -fail-on rule
// is broken (a deliberate regression: no stop-hook cap under hooks that
// keep blocking), 2 for a record that does not open, records that are not
// comparable, or a bad rule.
func TestCompareExitCodes(t *testing.T) {
	dir := t.TempDir()
	hooks := []string{"workload.faults.stop_hook_block=0.3", "workload.faults.stop_hook_repeat=0.9", "workload.after_block.mean=0", "workload.after_block.max=0"}
	base := recordRun(t, dir, "base.parquet", append(hooks, "stop_hook_block_cap=8")...)
	cand := recordRun(t, dir, "cand.parquet", append(hooks, "stop_hook_block_cap=0")...)

	code, stdout, stderr := simulateArgs(t, "compare", base, cand)
	assert.Equal(t, compareOK, code, stderr)
	assert.Contains(t, stdout, "Policy changes: `stop_hook_block_cap: 8 -> 0`.")
	assert.Contains(t, stdout, "Paired by episode seed")

	code, _, stderr = simulateArgs(t, "compare", "-fail-on", "failure_rate>+0.5pp,cost>+1%", base, cand)
	assert.Equal(t, compareRegression, code)
	assert.Contains(t, stderr, "regression:")
	assert.Contains(t, stderr, "cost>+1%")

	code, _, stderr = simulateArgs(t, "compare", "-fail-on", "failure_rate>+0.5pp,cost>+1%", cand, base)
	assert.Equal(t, compareOK, code, "the improvement is no regression: %s", stderr)

	out := filepath.Join(dir, "report")
	code, stdout, _ = simulateArgs(t, "compare", "-json", "-out", out, base, cand)
	assert.Equal(t, compareOK, code)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	assert.Contains(t, doc, "settings")
	for _, f := range []string{"compare.md", "compare.json", "forest.png", "forest.svg", "terminals.png", "ecdf.png", "paired-diff.png"} {
		st, err := os.Stat(filepath.Join(out, f))
		if assert.NoError(t, err) {
			assert.Positive(t, st.Size())
		}
	}

	other := recordRun(t, dir, "other.parquet", "workload.faults.overloaded=0.2")
	junk := filepath.Join(dir, "junk.parquet")
	require.NoError(t, os.WriteFile(junk, []byte("not parquet"), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{base}, "want two records"},
		{[]string{base, junk}, "junk.parquet"},
		{[]string{base, filepath.Join(dir, "absent.parquet")}, "absent.parquet"},
		{[]string{base, other}, "workload.faults.overloaded"},
		{[]string{"-fail-on", "latency>1%", base, cand}, `unknown metric "latency"`},
	} {
		code, _, stderr := simulateArgs(t, append([]string{"compare"}, c.args...)...)
		assert.Equal(t, compareBadInput, code, c.args)
		assert.Contains(t, stderr, c.want, c.args)
	}
	code, _, _ = simulateArgs(t, "compare", "-force", base, other)
	assert.Equal(t, compareOK, code)
}
