package reports

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sim"
)

// SchemaVersion is the version of the record format this loopsim writes.
// A record of this version or an older one opens; a newer one is refused
// with an error that says to update loopsim.
//
// Version 1: the header of [Header], the rows of [Row], the behaviour of
// [Behaviour].
const SchemaVersion = 1

// The keys of a record's Parquet key/value metadata.
const (
	// metaHeader holds the header as JSON: a data person reads it with
	// DuckDB's parquet_kv_metadata.
	metaHeader = "loopsim.record"
	// metaBehaviour holds the scenario library's behaviour as gzipped
	// JSON in base64 (the traces make it the larger part).
	metaBehaviour = "loopsim.behaviour"
)

// Header describes a recorded simulation.
type Header struct {
	// Schema is the record format's version (see [SchemaVersion]).
	Schema int `json:"schema"`
	// Command is the command line that reproduces the simulation.
	Command string `json:"command"`
	// Seed is the root seed every episode's seed derives from.
	Seed uint64 `json:"seed"`
	// Episodes is the number of episodes per setting.
	Episodes int `json:"episodes"`
	// FirstEpisode is the index of the first episode of each setting the
	// record holds: 0 but in the record of a shard (simulate -shard),
	// which holds episodes FirstEpisode to FirstEpisode+Episodes-1.
	FirstEpisode int `json:"first_episode,omitempty"`
	// Prices priced the tokens.
	Prices sim.Prices `json:"prices"`
	// Checked is set when every episode's invariants were checked.
	Checked bool `json:"invariants_checked"`
	// Settings are the settings, in row order: every policy value, the
	// model, the workload's parameters, the overrides.
	Settings []sim.Setting `json:"settings"`
	// Build is the loopsim that made the record.
	Build Build `json:"build"`
}

// Row is one episode of a record: a row of its Parquet file. Rows are
// ordered by setting, then episode. The metric columns are named as
// [sim.Metric.Name] names them, cost in millionths of a dollar.
type Row struct {
	// Setting is the index of the episode's setting in Header.Settings.
	Setting int32 `parquet:"setting"`
	// Episode is the episode's index, from 0.
	Episode int64 `parquet:"episode"`
	// Seed is the episode's seed: it keys the pairing of two records and
	// replays the episode.
	Seed uint64 `parquet:"seed"`
	// Terminal is how the episode ended; empty when it halted.
	Terminal string `parquet:"terminal,dict"`
	// Halted is set when it reached the iteration limit.
	Halted bool `parquet:"halted"`
	// AfterAPIError is set when it ended completed after an API error
	// (the seed profile's path), a failure.
	AfterAPIError bool `parquet:"after_api_error"`
	// Failed is set when it halted, ended in a failure terminal, or
	// completed after an API error.
	Failed bool `parquet:"failed"`

	Turns               int64 `parquet:"turns"`
	Iterations          int64 `parquet:"iterations"`
	Requests            int64 `parquet:"requests"`
	Tokens              int64 `parquet:"tokens"`
	InputTokens         int64 `parquet:"input_tokens"`
	OutputTokens        int64 `parquet:"output_tokens"`
	CacheReadTokens     int64 `parquet:"cache_read_tokens"`
	CacheWriteTokens    int64 `parquet:"cache_write_tokens"`
	WastedTokens        int64 `parquet:"wasted_tokens"`
	PeakContext         int64 `parquet:"peak_context"`
	AutoCompactions     int64 `parquet:"auto_compactions"`
	ReactiveCompactions int64 `parquet:"reactive_compactions"`
	CompactionFailures  int64 `parquet:"compaction_failures"`
	Collapses           int64 `parquet:"collapses"`
	Snips               int64 `parquet:"snips"`
	Microcompactions    int64 `parquet:"microcompactions"`
	Recoveries          int64 `parquet:"recoveries"`
	// StreamCutsKept is the column stream_cuts_kept, added without a
	// schema change: an older record lacks it and reads 0.
	StreamCutsKept int64 `parquet:"stream_cuts_kept"`
	Escalations    int64 `parquet:"escalations"`
	StopHookBlocks int64 `parquet:"stop_hook_blocks"`
	Retries        int64 `parquet:"retries"`
	Fallbacks      int64 `parquet:"fallbacks"`
	RetryTimeMS    int64 `parquet:"retry_time_ms"`
	// CostMicroUSD is the column cost_usd, in millionths of a dollar.
	CostMicroUSD int64 `parquet:"cost_usd"`

	// Violations counts the invariant violations of the episode.
	Violations int32 `parquet:"violations"`
	// Invariants names the invariants it broke, comma separated, each
	// once, in name order.
	Invariants string `parquet:"invariants,dict"`
}

// fields are a row's metric fields in [sim.Metrics] order.
func (r *Row) fields() []*int64 {
	return []*int64{&r.Turns, &r.Iterations, &r.Requests, &r.Tokens, &r.InputTokens, &r.OutputTokens, &r.CacheReadTokens,
		&r.CacheWriteTokens, &r.WastedTokens, &r.PeakContext, &r.AutoCompactions, &r.ReactiveCompactions, &r.CompactionFailures,
		&r.Collapses, &r.Snips, &r.Microcompactions, &r.Recoveries, &r.StreamCutsKept, &r.Escalations, &r.StopHookBlocks, &r.Retries,
		&r.Fallbacks, &r.RetryTimeMS, &r.CostMicroUSD}
}

// Value is the row's value of metric m.
func (r *Row) Value(m sim.Metric) int64 { return *r.fields()[m] }

// RowOf is the row of episode ep of setting s.
func RowOf(s int, ep *sim.Episode) Row {
	r := Row{Setting: int32(s), Episode: int64(ep.Index), Seed: ep.Seed, Terminal: string(ep.Terminal), Halted: ep.Halted,
		AfterAPIError: ep.AfterAPIError, Failed: ep.Failed(), Violations: int32(len(ep.Violations))}
	for i, f := range r.fields() {
		*f = ep.Values[i]
	}
	if len(ep.Violations) > 0 {
		var names []string
		for _, v := range ep.Violations {
			if !slices.Contains(names, v.Invariant) {
				names = append(names, v.Invariant)
			}
		}
		slices.Sort(names)
		r.Invariants = strings.Join(names, ",")
	}
	return r
}

// End is how the row's episode ended: its terminal, "halted", or
// "completed_after_api_error".
func (r *Row) End() string {
	switch {
	case r.Halted:
		return EndHalted
	case r.AfterAPIError && r.Terminal == string(loop.Completed):
		return EndCompletedAfterAPIError
	}
	return r.Terminal
}

// The ends of an episode that are not terminals of package loop.
const (
	EndHalted                 = "halted"
	EndCompletedAfterAPIError = "completed_after_api_error"
)

// Record is a recorded simulation, read back.
type Record struct {
	// File names where it was read from, for messages.
	File string
	// Header describes the simulation.
	Header Header
	// Rows are the episodes, by setting then episode.
	Rows []Row
	// Behaviour is the scenario library at the recording commit; nil
	// when the record holds none.
	Behaviour *Behaviour
}

// Setting is the rows of setting i.
func (r *Record) Setting(i int) []Row {
	n := r.Header.Episodes
	return r.Rows[i*n : (i+1)*n]
}

// recordRowGroup is the rows of one Parquet row group: the writer holds
// one row group in memory at a time, so a million episodes take as much
// memory as 131,072.
const recordRowGroup = 1 << 17

// recordBatch is how many rows a recorder hands the Parquet writer at
// once.
const recordBatch = 4096

// Recorder writes a record while a simulation runs: give [Recorder.Add]
// to [sim.Config.OnEpisode]. Episodes arrive in any order from many
// goroutines; the recorder holds those that arrive early until the ones
// before them came, so the file is the same whatever the parallelism,
// and memory stays bounded by how far the workers run apart.
type Recorder struct {
	mu      sync.Mutex
	w       *parquet.GenericWriter[Row]
	header  Header
	next    int
	pending map[int]Row
	batch   []Row
	err     error
}

// NewRecorder starts a record of the simulation h describes on w. The
// header's Schema is set to [SchemaVersion].
func NewRecorder(w io.Writer, h Header) (*Recorder, error) {
	if h.Episodes <= 0 || len(h.Settings) == 0 {
		return nil, fmt.Errorf("record: header has %d settings of %d episodes", len(h.Settings), h.Episodes)
	}
	h.Schema = SchemaVersion
	return &Recorder{
		w: parquet.NewGenericWriter[Row](w, parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault}),
			parquet.MaxRowsPerRowGroup(recordRowGroup)),
		header:  h,
		pending: map[int]Row{},
	}, nil
}

// Add records episode ep of setting s. It is safe to call from many
// goroutines.
func (r *Recorder) Add(s int, ep *sim.Episode) { r.AddRow(RowOf(s, ep)) }

// AddRow records a row (of another record: simulate merge joins the
// records of shards). It is safe to call from many goroutines.
func (r *Recorder) AddRow(row Row) {
	j := int(row.Setting)*r.header.Episodes + int(row.Episode) - r.header.FirstEpisode
	r.mu.Lock()
	defer r.mu.Unlock()
	if j != r.next {
		r.pending[j] = row
		return
	}
	r.batch = append(r.batch, row)
	r.next++
	for {
		row, ok := r.pending[r.next]
		if !ok {
			break
		}
		delete(r.pending, r.next)
		r.batch = append(r.batch, row)
		r.next++
	}
	for len(r.batch) >= recordBatch {
		r.write(r.batch[:recordBatch])
		r.batch = append(r.batch[:0], r.batch[recordBatch:]...)
	}
}

// write hands rows to the writer; the caller holds mu. The writer gets
// batches of exactly recordBatch rows (and the rest at the end), however
// the episodes arrived: the Parquet pages depend on the batches, and the
// file must not depend on the parallelism.
func (r *Recorder) write(rows []Row) {
	if r.err == nil && len(rows) > 0 {
		if _, err := r.w.Write(rows); err != nil {
			r.err = fmt.Errorf("record: %w", err)
		}
	}
}

// flush hands the batch to the writer; the caller holds mu.
func (r *Recorder) flush() {
	r.write(r.batch)
	r.batch = r.batch[:0]
}

// Close writes the rows still held, the header and b (nil for none) and
// ends the file. It fails when an episode is missing.
func (r *Recorder) Close(b *Behaviour) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flush()
	if r.err != nil {
		return r.err
	}
	if want := len(r.header.Settings) * r.header.Episodes; r.next != want || len(r.pending) > 0 {
		return fmt.Errorf("record: %d of %d episodes arrived in order (%d held): the simulation did not finish", r.next, want, len(r.pending))
	}
	head, err := json.Marshal(r.header)
	if err != nil {
		return fmt.Errorf("record: header: %w", err)
	}
	r.w.SetKeyValueMetadata(metaHeader, string(head))
	if b != nil {
		enc, err := encodeBehaviour(b)
		if err != nil {
			return err
		}
		r.w.SetKeyValueMetadata(metaBehaviour, enc)
	}
	if err := r.w.Close(); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

func encodeBehaviour(b *Behaviour) (string, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(b); err != nil {
		return "", fmt.Errorf("record: behaviour: %w", err)
	}
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("record: behaviour: %w", err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

func decodeBehaviour(s string) (*Behaviour, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	var b Behaviour
	dec := json.NewDecoder(zr)
	if err := dec.Decode(&b); err != nil {
		return nil, err
	}
	return &b, nil
}

// Open reads the record in file.
func Open(file string) (*Record, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("record %s: %w", file, err)
	}
	return Read(f, st.Size(), file)
}

// ErrNotRecord is the error (wrapped) for a file that is not a loopsim
// record: not Parquet, truncated, or Parquet of something else.
var ErrNotRecord = errors.New("not a loopsim record")

// ErrFutureSchema is the error (wrapped) for a record written by a newer
// loopsim in a format this one does not know.
var ErrFutureSchema = errors.New("record from a newer loopsim")

// Read reads a record of size bytes from r; name names it in errors.
func Read(r io.ReaderAt, size int64, name string) (rec *Record, err error) {
	// A damaged column chunk can make the Parquet reader panic; a bad
	// file is an error, never a crash.
	defer func() {
		if p := recover(); p != nil {
			rec, err = nil, fmt.Errorf("record %s: %w: damaged Parquet data: %v", name, ErrNotRecord, p)
		}
	}()
	f, err := parquet.OpenFile(r, size)
	if err != nil {
		return nil, fmt.Errorf("record %s: %w: not a complete Parquet file (truncated, or another format): %v", name, ErrNotRecord, err)
	}
	head, ok := f.Lookup(metaHeader)
	if !ok {
		return nil, fmt.Errorf("record %s: %w: a Parquet file without the %q metadata loopsim writes", name, ErrNotRecord, metaHeader)
	}
	rec = &Record{File: name}
	if err := json.Unmarshal([]byte(head), &rec.Header); err != nil {
		return nil, fmt.Errorf("record %s: %w: header: %v", name, ErrNotRecord, err)
	}
	h := &rec.Header
	switch {
	case h.Schema > SchemaVersion:
		return nil, fmt.Errorf("record %s: %w: schema version %d, this loopsim reads up to %d; update loopsim", name, ErrFutureSchema, h.Schema, SchemaVersion)
	case h.Schema < 1:
		return nil, fmt.Errorf("record %s: %w: header has schema version %d", name, ErrNotRecord, h.Schema)
	case len(h.Settings) == 0 || h.Episodes <= 0:
		return nil, fmt.Errorf("record %s: %w: header has %d settings of %d episodes", name, ErrNotRecord, len(h.Settings), h.Episodes)
	}
	want := int64(len(h.Settings)) * int64(h.Episodes)
	if f.NumRows() != want {
		return nil, fmt.Errorf("record %s: %d episode rows, the header says %d settings of %d episodes", name, f.NumRows(), len(h.Settings), h.Episodes)
	}
	if enc, ok := f.Lookup(metaBehaviour); ok {
		if rec.Behaviour, err = decodeBehaviour(enc); err != nil {
			return nil, fmt.Errorf("record %s: behaviour: %v", name, err)
		}
	}
	// The reader converts an older file's schema to Row's: a column the
	// older file lacks reads as zero.
	pr := parquet.NewGenericReader[Row](f)
	defer pr.Close()
	rec.Rows = make([]Row, want)
	for n := 0; n < len(rec.Rows); {
		// in batches: the reader's buffers grow with what one call asks
		k, err := pr.Read(rec.Rows[n:min(n+recordBatch, len(rec.Rows))])
		n += k
		if err == io.EOF && n == len(rec.Rows) {
			break
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("record %s: rows: %w", name, err)
		}
		if k == 0 {
			return nil, fmt.Errorf("record %s: rows: %d of %d read", name, n, want)
		}
	}
	for i := range rec.Rows {
		row := &rec.Rows[i]
		if s, e := int64(i)/int64(h.Episodes), int64(h.FirstEpisode)+int64(i)%int64(h.Episodes); int64(row.Setting) != s || row.Episode != e {
			return nil, fmt.Errorf("record %s: row %d is setting %d episode %d, want setting %d episode %d", name, i, row.Setting, row.Episode, s, e)
		}
	}
	return rec, nil
}
