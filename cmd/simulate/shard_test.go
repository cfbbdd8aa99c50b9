package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/reports"
)

// shardRunArgs are the flags of the small run the shard tests split:
// two settings, so that the Pareto view's paired comparisons (kept per
// episode) are merged too.
var shardRunArgs = []string{"-n", "60", "-seed", "5", "-calibrate", "20", "-transcripts", ""}

// runShardsInProcess runs shards 0..n-1 of shardRunArgs into dir.
func runShardsInProcess(t *testing.T, dir string, n int, extra ...string) {
	t.Helper()
	for i := range n {
		args := append(append([]string{"simulate"}, shardRunArgs...), "-shard", strconv.Itoa(i)+"/"+strconv.Itoa(n), "-out", dir)
		code, stdout, stderr := runCLI(t, append(args, extra...)...)
		require.Equal(t, simExitOK, code, stderr)
		assert.Contains(t, stdout, "wrote "+filepath.Join(dir, "shard-"+strconv.Itoa(i)+"-of-"+strconv.Itoa(n)+".shard"))
	}
}

// TestMergedShardsAreTheWholeRun: three shards merged write, byte for
// byte, what the whole run writes: summary.md, metrics.json,
// metrics.csv, every plot (PNG and SVG), and the record (the rows, the
// header with the whole run's command, the scenario library's
// behaviour). Only the lines on stdout that time the run differ (the
// merge prints the shards' time), and they are not compared.
func TestMergedShardsAreTheWholeRun(t *testing.T) {
	whole, shards, merged := t.TempDir(), t.TempDir(), t.TempDir()
	code, _, stderr := runCLI(t, append(append([]string{"simulate"}, shardRunArgs...), "-out", whole, "-record", filepath.Join(whole, "record.parquet"))...)
	require.Equal(t, simExitOK, code, stderr)

	runShardsInProcess(t, shards, 3, "-record", "yes")
	code, stdout, stderr := runCLI(t, "merge", "-out", merged, "-record", filepath.Join(merged, "record.parquet"), shards)
	require.Equal(t, simExitOK, code, stderr)
	assert.Contains(t, stdout, "merged 3 shards")

	files, err := os.ReadDir(whole)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 10, "summary, metrics, record and plots")
	for _, f := range files {
		want, err := os.ReadFile(filepath.Join(whole, f.Name()))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(merged, f.Name()))
		require.NoError(t, err, f.Name())
		assert.True(t, string(want) == string(got), "%s differs between the whole run and the merged shards", f.Name())
	}
	// the shards' records are records of their episodes: compare reads them
	r, err := reports.Open(filepath.Join(shards, "shard-1-of-3.parquet"))
	require.NoError(t, err)
	assert.Equal(t, 20, r.Header.FirstEpisode)
	assert.Equal(t, int64(20), r.Rows[0].Episode)
}

// TestMergeRefusesMismatchedShards: a missing shard, a shard given twice,
// one of another run and an interrupted one are refused with an error
// naming the files and what differs; nothing is written.
func TestMergeRefusesMismatchedShards(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	runShardsInProcess(t, dir, 2)
	s0, s1 := filepath.Join(dir, "shard-0-of-2.shard"), filepath.Join(dir, "shard-1-of-2.shard")
	out := filepath.Join(t.TempDir(), "merged")

	code, _, stderr := runCLI(t, "merge", "-out", out, s0)
	assert.Equal(t, simExitBadInput, code)
	assert.Contains(t, stderr, "of 2 shards, shard 1 missing (have 1 files: "+s0+")")

	code, _, stderr = runCLI(t, "merge", "-out", out, s0, s1, s1)
	assert.Equal(t, simExitBadInput, code)
	assert.Contains(t, stderr, "shard 1/2 given twice: "+s1+" and "+s1)

	code, _, stderr = runCLI(t, "simulate", "-n", "60", "-seed", "6", "-calibrate", "20", "-transcripts", "", "-set", "auto_compact_buffer=20000",
		"-shard", "1/2", "-out", other)
	require.Equal(t, simExitOK, code, stderr)
	code, _, stderr = runCLI(t, "merge", "-out", out, s0, filepath.Join(other, "shard-1-of-2.shard"))
	assert.Equal(t, simExitBadInput, code)
	assert.Contains(t, stderr, filepath.Join(other, "shard-1-of-2.shard")+" is not a shard of the same run as "+s0+": seed 6 against 5")
	assert.Contains(t, stderr, "auto_compact_buffer=20000")

	code, _, stderr = runCLI(t, "merge", "-out", out, "-record", filepath.Join(out, "r.parquet"), dir)
	assert.Equal(t, simExitBadInput, code)
	assert.Contains(t, stderr, "was run without -record")

	require.NoError(t, os.WriteFile(filepath.Join(other, "shard-0-of-2.shard"), []byte("PAR1"), 0o644))
	code, _, stderr = runCLI(t, "merge", "-out", out, filepath.Join(other, "shard-0-of-2.shard"))
	assert.Equal(t, simExitBadInput, code)
	assert.Contains(t, stderr, filepath.Join(other, "shard-0-of-2.shard")+": not a loopsim shard file")

	_, err := os.Stat(out)
	assert.True(t, os.IsNotExist(err), "a refused merge writes nothing")
}

// TestShardFlags: -shard and -shard-index-env take the shard from the
// flags or the environment, with a message naming what is wrong.
func TestShardFlags(t *testing.T) {
	t.Setenv("SHARD_TEST_INDEX", "2")
	fs, o := simFlags(os.Stderr)
	require.NoError(t, fs.Parse([]string{"-n", "10", "-shard-index-env", "SHARD_TEST_INDEX", "-shard", "3"}))
	p, err := o.plan()
	require.NoError(t, err)
	assert.Equal(t, "2/3", p.shard.String())

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-shard", "3/3"}, "-shard: shard \"3/3\": index 3 out of range"},
		{[]string{"-shard", "1/20", "-n", "5"}, "more shards than the 5 episodes"},
		{[]string{"-shard-index-env", "SHARD_TEST_INDEX", "-shard", "1/3"}, "give -shard as the number of shards alone"},
		{[]string{"-shard-index-env", "SHARD_TEST_UNSET", "-shard", "3"}, "SHARD_TEST_UNSET: the environment variable is not set"},
		{[]string{"-shard-index-env", "SHARD_TEST_INDEX", "-shard", "2"}, "index from $SHARD_TEST_INDEX: shard \"2/2\": index 2 out of range"},
		{[]string{"-shards", "2", "-shard", "0/2"}, "-shards runs every shard"},
	} {
		code, _, stderr := runCLI(t, append([]string{"simulate"}, c.args...)...)
		assert.Equal(t, simExitBadInput, code, c.args)
		assert.Contains(t, stderr, c.want, c.args)
	}
}

// TestLocalShardsAsProcesses: -shards 2 runs two processes of this
// binary (the test binary, as a child) and merges them into the whole
// run's summary.
func TestLocalShardsAsProcesses(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	shardExecutable = func() (string, error) { return exe, nil }
	t.Setenv(childEnv, "1")
	whole, local := t.TempDir(), t.TempDir()
	code, _, stderr := runCLI(t, append(append([]string{"simulate"}, shardRunArgs...), "-plots=false", "-out", whole)...)
	require.Equal(t, simExitOK, code, stderr)
	code, stdout, stderr := runCLI(t, append(append([]string{"simulate"}, shardRunArgs...), "-plots=false", "-shards", "2", "-out", local)...)
	require.Equal(t, simExitOK, code, stderr)
	assert.Contains(t, stdout, "2 shards as processes")
	assert.Contains(t, stderr, "shard 1/2 done")
	for _, f := range []string{"summary.md", "metrics.json", "metrics.csv"} {
		want, err := os.ReadFile(filepath.Join(whole, f))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(local, f))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), f)
	}
}
