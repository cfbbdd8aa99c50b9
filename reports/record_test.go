package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sim"
)

// simulate runs a small simulation of the settings with the recorder
// hooked, and returns the record's bytes and the episodes the runner
// reported, by setting.
func simulate(t *testing.T, settings []sim.Setting, episodes, workers int, seed uint64) ([]byte, [][]sim.Episode) {
	t.Helper()
	var buf bytes.Buffer
	h := Header{Command: "test", Seed: seed, Episodes: episodes, Prices: sim.DefaultPrices, Checked: true, Settings: settings,
		Build: Build{Module: "m", Version: "(devel)", Revision: "abc", GoVersion: "go1.x"}}
	rec, err := NewRecorder(&buf, h)
	require.NoError(t, err)
	seen := make([][]sim.Episode, len(settings))
	for i := range seen {
		seen[i] = make([]sim.Episode, episodes)
	}
	cfg := sim.Config{Settings: settings, Episodes: episodes, Seed: seed, Workers: workers, Prices: sim.DefaultPrices,
		Check: sim.CheckProperties, OnEpisode: func(s int, ep *sim.Episode) {
			rec.Add(s, ep)
			seen[s][ep.Index] = *ep // distinct elements: no race
		}}
	_, err = sim.Run(context.Background(), cfg)
	require.NoError(t, err)
	b := &Behaviour{Scenarios: []ScenarioRun{{Name: "x", Verdict: VerdictPass, Terminal: "completed", Requests: 2, Trace: "{}\n"}}}
	require.NoError(t, rec.Close(b))
	return buf.Bytes(), seen
}

func setting(t *testing.T, profile string, kv ...string) sim.Setting {
	t.Helper()
	s, err := sim.NewSetting(profile)
	require.NoError(t, err)
	for i := 0; i < len(kv); i += 2 {
		s, err = s.With(kv[i], kv[i+1])
		require.NoError(t, err)
	}
	return s
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func TestRecordRoundTrip(t *testing.T) {
	settings := []sim.Setting{setting(t, "claude-code"), setting(t, "seed", "workload.faults.stop_hook_block", "0.5")}
	data, seen := simulate(t, settings, 30, 3, 7)
	rec, err := Open(writeTemp(t, "r.parquet", data))
	require.NoError(t, err)

	assert.Equal(t, SchemaVersion, rec.Header.Schema)
	assert.Equal(t, uint64(7), rec.Header.Seed)
	assert.Equal(t, 30, rec.Header.Episodes)
	assert.Equal(t, "abc", rec.Header.Build.Revision)
	// Every policy value, the model and the workload come back.
	want, _ := json.Marshal(settings)
	got, _ := json.Marshal(rec.Header.Settings)
	assert.JSONEq(t, string(want), string(got))
	require.NotNil(t, rec.Behaviour)
	assert.Equal(t, "x", rec.Behaviour.Scenarios[0].Name)

	require.Len(t, rec.Rows, 60)
	for s := range settings {
		for i, row := range rec.Setting(s) {
			ep := seen[s][i]
			assert.Equal(t, RowOf(s, &ep), row, "setting %d episode %d", s, i)
			assert.Equal(t, sim.EpisodeSeed(7, i), row.Seed)
		}
	}
}

func TestRecordSameBytesWhateverTheWorkers(t *testing.T) {
	settings := []sim.Setting{setting(t, "claude-code")}
	one, _ := simulate(t, settings, 40, 1, 3)
	four, _ := simulate(t, settings, 40, 4, 3)
	assert.True(t, bytes.Equal(one, four), "the record depends on the number of workers")
}

func TestRowHasEveryMetric(t *testing.T) {
	schema := parquet.SchemaOf(Row{})
	var ep sim.Episode
	for _, m := range sim.Metrics() {
		ep.Values[m] = int64(1000 + m)
	}
	row := RowOf(0, &ep)
	for _, m := range sim.Metrics() {
		_, ok := schema.Lookup(m.Name())
		assert.True(t, ok, "no column %q", m.Name())
		assert.Equal(t, int64(1000+m), row.Value(m), m.Name())
	}
}

// oldRow is a row of an older record format: fewer columns.
type oldRow struct {
	Setting  int32  `parquet:"setting"`
	Episode  int64  `parquet:"episode"`
	Seed     uint64 `parquet:"seed"`
	Terminal string `parquet:"terminal,dict"`
	Tokens   int64  `parquet:"tokens"`
	// Recoveries is there, stream_cuts_kept (added later) is not.
	Recoveries int64 `parquet:"recoveries"`
}

// writeRaw writes rows with the given header metadata (none when head is
// empty).
func writeRaw[T any](t *testing.T, rows []T, head string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf)
	_, err := w.Write(rows)
	require.NoError(t, err)
	if head != "" {
		w.SetKeyValueMetadata(metaHeader, head)
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func headerJSON(t *testing.T, schema, episodes int) string {
	t.Helper()
	h := Header{Schema: schema, Episodes: episodes, Settings: []sim.Setting{setting(t, "seed")}}
	b, err := json.Marshal(h)
	require.NoError(t, err)
	return string(b)
}

func TestRecordOlderSchemaOpens(t *testing.T) {
	rows := []oldRow{{Episode: 0, Seed: 11, Terminal: "completed", Tokens: 500, Recoveries: 2}, {Episode: 1, Seed: 12, Terminal: "api_error", Tokens: 9}}
	path := writeTemp(t, "old.parquet", writeRaw(t, rows, headerJSON(t, 1, 2)))
	rec, err := Open(path)
	require.NoError(t, err)
	require.Len(t, rec.Rows, 2)
	assert.Equal(t, int64(500), rec.Rows[0].Tokens)
	assert.Equal(t, "api_error", rec.Rows[1].Terminal)
	assert.Zero(t, rec.Rows[1].CostMicroUSD, "a column the older record lacks reads as zero")
	assert.Equal(t, int64(2), rec.Rows[0].Recoveries)
	assert.Zero(t, rec.Rows[0].StreamCutsKept, "a record from before stream_cuts_kept reads it as zero")
}

func TestRecordBadFiles(t *testing.T) {
	good, _ := simulate(t, []sim.Setting{setting(t, "seed")}, 5, 1, 1)
	cases := []struct {
		name, file string
		data       []byte
		want       []string
	}{
		{"truncated", "cut.parquet", good[:len(good)/2], []string{"cut.parquet", "truncated"}},
		{"empty", "empty.parquet", nil, []string{"empty.parquet", "not a loopsim record"}},
		{"text", "notes.txt", []byte("hello, this is not parquet\n"), []string{"notes.txt", "not a complete Parquet file"}},
		{"foreign parquet", "other.parquet", writeRaw(t, []oldRow{{Seed: 1}}, ""), []string{"other.parquet", `without the "loopsim.record" metadata`}},
		{"future schema", "future.parquet", writeRaw(t, []oldRow{{Seed: 1}}, headerJSON(t, SchemaVersion+1, 1)),
			[]string{"future.parquet", "schema version 2", "update loopsim"}},
		{"bad header", "head.parquet", writeRaw(t, []oldRow{{Seed: 1}}, "{not json"), []string{"head.parquet", "header"}},
		{"rows missing", "short.parquet", writeRaw(t, []oldRow{{Seed: 1}}, headerJSON(t, 1, 3)), []string{"short.parquet", "1 episode rows", "1 settings of 3 episodes"}},
		{"rows out of order", "order.parquet", writeRaw(t, []oldRow{{Episode: 1}, {Episode: 0}}, headerJSON(t, 1, 2)), []string{"order.parquet", "row 0 is setting 0 episode 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(writeTemp(t, c.file, c.data))
			require.Error(t, err)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	_, err := Open(filepath.Join(t.TempDir(), "absent.parquet"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "absent.parquet")
}

func TestRecorderRefusesAnUnfinishedRun(t *testing.T) {
	rec, err := NewRecorder(&bytes.Buffer{}, Header{Episodes: 3, Settings: []sim.Setting{setting(t, "seed")}})
	require.NoError(t, err)
	rec.Add(0, &sim.Episode{Index: 0})
	rec.Add(0, &sim.Episode{Index: 2})
	err = rec.Close(nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "1 of 3 episodes")
}

func TestCompareBehaviour(t *testing.T) {
	base := &Behaviour{Scenarios: []ScenarioRun{
		{Name: "same", Verdict: VerdictPass, Terminal: "completed", Digest: "d1", Trace: "a\n"},
		{Name: "moved", Verdict: VerdictPass, Terminal: "completed", Transitions: []loop.Transition{"stop_hook_blocking"}, Requests: 2, Digest: "d2", Trace: "a\nb\nc\n"},
		{Name: "gone", Verdict: VerdictPass},
	}}
	cand := &Behaviour{Scenarios: []ScenarioRun{
		{Name: "same", Verdict: VerdictPass, Terminal: "completed", Digest: "d1", Trace: "a\n"},
		{Name: "moved", Verdict: VerdictFail, Terminal: "api_error", Requests: 3, Digest: "d3", Trace: "a\nx\n"},
		{Name: "new", Verdict: VerdictPass},
	}}
	got := CompareBehaviour(base, cand)
	require.Len(t, got, 3)
	assert.Equal(t, "moved", got[0].Name)
	assert.Equal(t, []string{"verdict", "terminal", "transitions", "requests", "trace"}, got[0].What)
	assert.Contains(t, got[0].Diff, "- terminal: completed\n+ terminal: api_error\n- transitions: [stop_hook_blocking]\n+ transitions: []\n- requests: 2\n+ requests: 3\n")
	assert.Contains(t, got[0].Diff, "first difference at event 1")
	assert.Contains(t, got[0].Diff, "- b\n")
	assert.Contains(t, got[0].Diff, "+ x\n")
	assert.Equal(t, ScenarioChange{Name: "new", What: []string{"added"}, Candidate: VerdictPass}, got[1])
	assert.Equal(t, ScenarioChange{Name: "gone", What: []string{"removed"}, Base: VerdictPass}, got[2])
}
