package sim

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outputs are a result's summary, metrics.json and metrics.csv.
func outputs(t *testing.T, r *Result) [3]string {
	t.Helper()
	rep := &Report{Command: "cmd", Result: r, CalibrationNote: "Not measured."}
	var out [3]string
	for i, write := range []func(io.Writer) error{rep.WriteMarkdown, rep.WriteJSON, rep.WriteCSV} {
		var b bytes.Buffer
		require.NoError(t, write(&b))
		out[i] = b.String()
	}
	return out
}

// runShards runs the shards of cfg and returns their files, read back
// from their bytes.
func runShards(t *testing.T, cfg Config, n int, run map[string]string) ([]*ShardFile, []string) {
	t.Helper()
	var files []*ShardFile
	var names []string
	for i := range n {
		c := cfg
		c.Shard = Shard{Index: i, Count: n}
		res, err := Run(context.Background(), c)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, NewShardFile(res, run, 0).Write(&b))
		f, err := ReadShardFile(&b)
		require.NoError(t, err)
		files = append(files, f)
		names = append(names, fmt.Sprintf("shard-%d", i))
	}
	return files, names
}

// TestShardsMergeToTheWholeRun: three shards, merged in any order, give
// the whole run's summary and metrics byte for byte, quantiles, intervals
// and the paired Pareto comparisons included.
func TestShardsMergeToTheWholeRun(t *testing.T) {
	settings := []Setting{mustSetting(t, "claude-code"), mustSetting(t, "seed", "workload.swarm=true")}
	cfg := Config{Settings: settings, Episodes: 120, Seed: 9, Workers: 2, Prices: DefaultPrices, Check: CheckProperties}
	whole, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	require.True(t, whole.Paired())

	files, names := runShards(t, cfg, 3, map[string]string{"command": "x"})
	files[0], files[2] = files[2], files[0]
	names[0], names[2] = names[2], names[0]
	merged, err := MergeShards(settings, files, names)
	require.NoError(t, err)
	assert.True(t, merged.Paired())
	assert.Equal(t, outputs(t, whole), outputs(t, merged))
	assert.Equal(t, whole.pairs, merged.pairs)
	for i := range settings {
		for _, q := range []float64{0.5, 0.9, 0.99} {
			assert.Equal(t, whole.Settings[i].Aggregate.Quantile(Tokens, q), merged.Settings[i].Aggregate.Quantile(Tokens, q))
		}
	}
}

// TestShardRanges: the shards' ranges cover every episode once, in order.
func TestShardRanges(t *testing.T) {
	for _, n := range []int{1, 3, 7, 10} {
		next := 0
		for i := range n {
			lo, hi := Shard{Index: i, Count: n}.Range(10)
			assert.Equal(t, next, lo)
			assert.Greater(t, hi, lo)
			next = hi
		}
		assert.Equal(t, 10, next)
	}
	_, err := Run(context.Background(), Config{Settings: []Setting{mustSetting(t, "seed")}, Episodes: 2, Shard: Shard{Index: 0, Count: 3}})
	assert.ErrorContains(t, err, "3 shards of 2 episodes")
}

// TestParseShard: i/n, with a message naming what is wrong.
func TestParseShard(t *testing.T) {
	s, err := ParseShard("2/4")
	require.NoError(t, err)
	assert.Equal(t, Shard{Index: 2, Count: 4}, s)
	for in, want := range map[string]string{"4/4": "index 4 out of range", "x/4": `index "x"`, "1": "want i/n", "0/0": "0 shards", "-1/3": "index -1"} {
		_, err := ParseShard(in)
		assert.ErrorContains(t, err, want, in)
	}
}

// TestMergeRefusesMismatchedShards: a missing, repeated or interrupted
// shard, or one of another run, is refused naming the files.
func TestMergeRefusesMismatchedShards(t *testing.T) {
	settings := []Setting{mustSetting(t, "seed")}
	cfg := Config{Settings: settings, Episodes: 12, Seed: 3, Prices: DefaultPrices}
	files, names := runShards(t, cfg, 3, map[string]string{"build": "v1"})

	_, err := MergeShards(settings, files[:2], names[:2])
	assert.ErrorContains(t, err, "shard 2 missing")

	_, err = MergeShards(settings, []*ShardFile{files[0], files[1], files[1], files[2]}, []string{"a", "b", "c", "d"})
	assert.ErrorContains(t, err, "shard 1/3 given twice: b and c")

	partial := *files[1]
	partial.Partial = true
	_, err = MergeShards(settings, []*ShardFile{files[0], &partial, files[2]}, names)
	assert.ErrorContains(t, err, "shard-1: shard 1/3 was interrupted")

	other, _ := runShards(t, Config{Settings: settings, Episodes: 12, Seed: 4, Prices: DefaultPrices}, 3, map[string]string{"build": "v2"})
	_, err = MergeShards(settings, []*ShardFile{files[0], other[1], files[2]}, names)
	assert.ErrorContains(t, err, "shard-1 is not a shard of the same run as shard-0: seed 4 against 3; build \"v2\" against \"v1\"")

	_, err = ReadShardFile(bytes.NewReader([]byte("PAR1 not a shard")))
	assert.ErrorContains(t, err, "not a loopsim shard file")
	_, err = ReadShardFile(bytes.NewReader([]byte(shardMagic + "99\n")))
	assert.ErrorContains(t, err, "format 99")
}
