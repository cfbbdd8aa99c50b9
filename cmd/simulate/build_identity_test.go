package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/reports"
)

// TestBuildIdentityDoesNotDependOnWhereItRuns: one binary without a VCS
// stamp (as go test builds this one, like go run and -buildvcs=false)
// writes shards from a folder outside the checkout, as cluster tasks do
// from their scratch folders, and merges them from inside the checkout.
// The merge used to refuse them: the build asked git in the working
// directory, so the same binary had a revision in the checkout and none
// outside it.
func TestBuildIdentityDoesNotDependOnWhereItRuns(t *testing.T) {
	checkout, err := os.Getwd()
	require.NoError(t, err)
	if err := exec.Command("git", "-C", checkout, "rev-parse", "HEAD").Run(); err != nil {
		t.Skipf("the package is not in a git work tree (git rev-parse: %v): the working directory cannot change what git says", err)
	}
	scratch := t.TempDir()
	t.Chdir(scratch)
	runShardsInProcess(t, "shards", 2, "-record", "yes")
	outside := buildInfo()

	t.Chdir(checkout)
	assert.Equal(t, outside, buildInfo(), "the same binary names its build the same in the checkout and outside it")
	merged := t.TempDir()
	code, stdout, stderr := runCLI(t, "merge", "-out", merged, "-record", filepath.Join(merged, "record.parquet"), filepath.Join(scratch, "shards"))
	require.Equal(t, simExitOK, code, stderr)
	assert.Contains(t, stdout, "merged 2 shards")
	r, err := reports.Open(filepath.Join(merged, "record.parquet"))
	require.NoError(t, err)
	assert.Equal(t, buildInfo(), r.Header.Build)
}
