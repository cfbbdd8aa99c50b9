package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSimulateJSON: -json prints the summary as one JSON document on
// stdout (what metrics.json holds), the table on stderr; -pareto picks
// the Pareto view's axes and bad axes are refused.
func TestSimulateJSON(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := simulateArgs(t, "-n", "12", "-sweep", "stop_hook_block_cap=0,8", "-profile", "claude-code",
		"-pareto", "tokens,failure_rate", "-plots=false", "-calibrate", "0", "-json", "-out", dir)
	require.Equal(t, simExitOK, code, stderr)
	var doc struct {
		ParetoAxes []string `json:"pareto_axes"`
		Settings   []struct {
			Label       string `json:"label"`
			Episodes    int    `json:"episodes"`
			ParetoFront bool   `json:"pareto_front"`
		} `json:"settings"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc), "stdout holds the JSON alone:\n%s", stdout)
	assert.Equal(t, []string{"tokens", "failure_rate"}, doc.ParetoAxes)
	require.Len(t, doc.Settings, 2)
	assert.Equal(t, "stop_hook_block_cap=off", doc.Settings[0].Label)
	assert.Equal(t, 12, doc.Settings[1].Episodes)
	assert.Contains(t, stderr, "stop_hook_block_cap=8", "the table goes to stderr")
	file, err := os.ReadFile(filepath.Join(dir, "metrics.json"))
	require.NoError(t, err)
	assert.JSONEq(t, string(file), stdout)

	code, _, stderr = simulateArgs(t, "-n", "2", "-pareto", "tokens,speed")
	assert.Equal(t, simExitBadInput, code)
	assert.Contains(t, stderr, `no axis "speed"`)
}
