package scenarios

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden traces (JSON Lines and readable) under testdata/golden")

const goldenDir = "testdata/golden"

// TestLibrary runs every scenario of the library: it must do what it
// expects, and its trace must match its golden files byte for byte.
func TestLibrary(t *testing.T) {
	for _, s := range loadLibrary(t) {
		t.Run(s.Name, func(t *testing.T) {
			out, err := Run(context.Background(), s)
			require.NoError(t, err)
			if s.Skip != "" {
				// A skipped scenario shows a loop bug and expects the
				// correct behaviour: once the bug is fixed it passes, and
				// the skip must go.
				require.False(t, out.Passed(), "%s passes now: the bug its skip names is fixed; delete the skip line and run go test ./scenarios/... -update", s.File)
				t.Skip(s.Skip)
			}
			if !out.Passed() {
				t.Errorf("%s: the run departed from the expectation (-want +got):\n%s", s.File, out.Diff())
				for _, v := range out.Violations {
					t.Logf("invariant broken: %s", v.Error())
				}
			}
			checkGolden(t, s.Name, out.Result.Trace)
		})
	}
}

// TestLibraryFileNames: each scenario is named after its file.
func TestLibraryFileNames(t *testing.T) {
	for _, s := range loadLibrary(t) {
		want := "library/" + s.Name + ".yaml"
		assert.Equal(t, want, s.File, "scenario %q: name the file %s", s.Name, want)
	}
}

func loadLibrary(t *testing.T) []*Scenario {
	t.Helper()
	list, err := Library()
	require.NoError(t, err)
	return list
}

// TestLibraryIsDeterministic runs the library with one and with four
// threads: the traces must equal the golden ones either way (concurrent
// tools are merged in block order, whatever the scheduler does).
func TestLibraryIsDeterministic(t *testing.T) {
	if *update {
		t.Skip("rewriting the goldens")
	}
	for _, procs := range []int{1, 4} {
		prev := runtime.GOMAXPROCS(procs)
		for _, s := range loadLibrary(t) {
			if s.Skip != "" {
				continue
			}
			out, err := Run(context.Background(), s)
			require.NoError(t, err)
			t.Run(fmt.Sprintf("%s/GOMAXPROCS=%d", s.Name, procs), func(t *testing.T) { checkGolden(t, s.Name, out.Result.Trace) })
		}
		runtime.GOMAXPROCS(prev)
	}
}
