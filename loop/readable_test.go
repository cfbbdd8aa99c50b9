package loop_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden readable traces under testdata/readable")

// readableDir holds traces (NAME.jsonl) and the readable form of each
// (NAME.txt). The traces are copies of scenario golden traces, and two
// runs of the seed profile whose seams fail (failing-seams: a collapser
// that panics, a tool, a tool-use summarizer and the stop hooks that
// return errors, an agent ID; failing-stop-failure-hooks: a 500 told to
// stop-failure hooks that fail), chosen so that, together, they show
// every kind of line the readable form has: every event kind, each way a
// stage, a compaction, a retry, a tool result, a stop hook or a tool-use
// summary can go, and each optional part of a state line. They are
// frozen copies, not links, so that a change of the loop's behaviour does
// not change what this test reads.
const readableDir = "testdata/readable"

// TestReadableGolden: the readable trace a person reads (simulate run,
// simulate demo, a failing test's log) matches its golden file; rewrite
// the golden files with go test ./loop -run TestReadableGolden -update.
func TestReadableGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join(readableDir, "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, inputs, "no traces under %s", readableDir)
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".jsonl")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			require.NoError(t, err)
			tr, err := loop.ReadJSONL(bytes.NewReader(data))
			require.NoError(t, err)
			var got bytes.Buffer
			require.NoError(t, loop.WriteReadable(&got, tr))
			path := filepath.Join(readableDir, name+".txt")
			if *update {
				require.NoError(t, os.WriteFile(path, got.Bytes(), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "no golden readable trace (run go test ./loop -run TestReadableGolden -update)")
			if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got.String(), "\n")); diff != "" {
				t.Errorf("readable trace differs from %s (-golden +got); if the format changed on purpose, rerun with -update:\n%s", path, diff)
			}
		})
	}
}
