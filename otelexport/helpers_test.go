package otelexport

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// goldenDir holds the scenario library's golden traces.
const goldenDir = "../scenarios/testdata/golden"

// exampleScenario has a tool call, a dropped connection and its retry, a
// prompt-too-long, a reactive compaction and a completed end.
const exampleScenario = "cc-wire-answers-by-purpose"

func goldenTrace(t *testing.T, name string) loop.Trace {
	t.Helper()
	f, err := os.Open(filepath.Join(goldenDir, name+".jsonl"))
	require.NoError(t, err)
	defer f.Close()
	tr, err := loop.ReadJSONL(f)
	require.NoError(t, err)
	return tr
}
