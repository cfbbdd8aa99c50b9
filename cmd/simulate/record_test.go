package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/reports"
)

// TestSimulateRecord: -record writes a record that opens, with the
// command, every setting, every episode and the scenario library's
// behaviour; a record that cannot be created is exit 1.
func TestSimulateRecord(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "base.parquet")
	code, _, stderr := simulateArgs(t, "-n", "12", "-seed", "5", "-transcripts", "", "-plots=false", "-out", dir,
		"-sweep", "stop_hook_block_cap=0,8", "-profile", "claude-code", "-record", file)
	require.Equal(t, simExitOK, code, stderr)
	rec, err := reports.Open(file)
	require.NoError(t, err)
	assert.Contains(t, rec.Header.Command, "-sweep stop_hook_block_cap=0,8")
	assert.Equal(t, uint64(5), rec.Header.Seed)
	require.Len(t, rec.Header.Settings, 2)
	assert.Equal(t, 8, rec.Header.Settings[1].Policy.StopHookBlockCap)
	assert.Len(t, rec.Rows, 24)
	assert.NotEmpty(t, rec.Header.Build.GoVersion)
	require.NotNil(t, rec.Behaviour)
	assert.NotEmpty(t, rec.Behaviour.Scenarios)

	// A record's folder is made as -out's is (the record usually goes in it).
	nested := filepath.Join(dir, "fresh-out", "r.parquet")
	code, _, stderr = simulateArgs(t, "-n", "2", "-transcripts", "", "-plots=false", "-out", filepath.Join(dir, "fresh-out"), "-record", nested)
	require.Equal(t, simExitOK, code, stderr)
	_, err = reports.Open(nested)
	require.NoError(t, err)

	// A path under a regular file cannot be created.
	code, _, stderr = simulateArgs(t, "-n", "2", "-transcripts", "", "-plots=false", "-out", dir, "-record", filepath.Join(file, "r.parquet"))
	assert.Equal(t, simExitFailed, code)
	assert.Contains(t, stderr, "-record")
}
