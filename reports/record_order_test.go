package reports

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/sim"
)

// TestRecordSameBytesWhateverTheArrival: rows that arrive in order and
// rows held back behind slow episodes (bursts of 2,000 to 4,900 rows, as
// workers deliver them) write the same file: the Parquet pages follow
// the writer's batches, so the recorder hands it batches of a fixed size
// (before, a 10^6-episode run's record differed from its merged shards').
func TestRecordSameBytesWhateverTheArrival(t *testing.T) {
	const episodes = recordRowGroup/2 + 3*recordBatch + 123
	h := Header{Command: "test", Seed: 1, Episodes: episodes, Prices: sim.DefaultPrices, Settings: []sim.Setting{setting(t, "seed"), setting(t, "claude-code")},
		Build: Build{Module: "m", Version: "(devel)", Revision: "abc", GoVersion: "go1.x"}}
	row := func(j int) Row {
		x := uint64(j)*0x9e3779b97f4a7c15 ^ 0xbf58476d1ce4e5b9
		return Row{Setting: int32(j / episodes), Episode: int64(j % episodes), Seed: x, Terminal: "completed", Tokens: int64(x % 10_000_000),
			InputTokens: int64(x >> 40), CostMicroUSD: int64(x % 999_983), Turns: int64(x % 37)}
	}
	write := func(order []int) []byte {
		var buf bytes.Buffer
		rec, err := NewRecorder(&buf, h)
		require.NoError(t, err)
		for _, j := range order {
			rec.AddRow(row(j))
		}
		require.NoError(t, rec.Close(nil))
		return buf.Bytes()
	}
	var inOrder, late []int
	held := -1
	for j := range 2 * episodes {
		inOrder = append(inOrder, j)
		switch {
		case j%5000 == 1:
			held = j // a slow episode: the next ones wait behind it
		case held >= 0 && j%5000 == 1+2000+(j/5000*1237)%2900: // 2,000 to 4,899 rows later
			late = append(late, j, held)
			held = -1
		default:
			late = append(late, j)
		}
	}
	if held >= 0 {
		late = append(late, held)
	}
	assert.True(t, bytes.Equal(write(inOrder), write(late)), "the record depends on the order the episodes arrived in")
}
