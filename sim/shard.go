package sim

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/loopsim/loopsim/loop"
)

// Shard is one of Count slices of a simulation's episodes: shard Index
// plays, for every setting, the episodes of [Shard.Range]. Every episode's
// seed derives from the root seed and its index alone, so the shards of a
// run play, between them, exactly the episodes the whole run plays. The
// zero Shard is the whole run.
type Shard struct {
	// Index is the shard's number, from 0.
	Index int
	// Count is the number of shards; 0 means the whole run.
	Count int
}

// maxShards caps the shards of one run.
const maxShards = 100_000

// ParseShard reads "i/n" (0 <= i < n).
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want i/n, e.g. 0/4", s)
	}
	i, err := strconv.Atoi(strings.TrimSpace(is))
	if err != nil {
		return Shard{}, fmt.Errorf("shard %q: the index %q is not a number", s, is)
	}
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	if err != nil {
		return Shard{}, fmt.Errorf("shard %q: the count %q is not a number", s, ns)
	}
	sh := Shard{Index: i, Count: n}
	if err := sh.valid(); err != nil {
		return Shard{}, fmt.Errorf("shard %q: %w", s, err)
	}
	return sh, nil
}

func (s Shard) valid() error {
	if s.Count < 1 || s.Count > maxShards {
		return fmt.Errorf("%d shards: want 1 to %d", s.Count, maxShards)
	}
	if s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("index %d out of range: want 0 to %d for %d shards", s.Index, s.Count-1, s.Count)
	}
	return nil
}

// check reports a shard that is not the whole run and is invalid, or
// has more shards than episodes.
func (s Shard) check(episodes int) error {
	if s == (Shard{}) {
		return nil
	}
	if err := s.valid(); err != nil {
		return fmt.Errorf("shard %s: %w", s, err)
	}
	if s.Count > episodes {
		return fmt.Errorf("shard %s: %d shards of %d episodes: at most one shard per episode", s, s.Count, episodes)
	}
	return nil
}

// String is "i/n", or "all" for the whole run.
func (s Shard) String() string {
	if s.Count == 0 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Range is the episodes [lo, hi) shard s plays of a run of episodes per
// setting: contiguous slices, as equal as can be, in index order.
func (s Shard) Range(episodes int) (lo, hi int) {
	if s.Count == 0 {
		return 0, episodes
	}
	return s.Index * episodes / s.Count, (s.Index + 1) * episodes / s.Count
}

// shardMagic starts a shard file, so that another file is refused by
// name; the number after it is the format's version.
const shardMagic = "loopsim shard\n"

// ShardFormat is the version of the shard file format this loopsim
// writes and reads; a file of another version is refused.
const ShardFormat = 2

// ShardFile is what one shard writes: the run it belongs to, what it
// played, and its results in a form that merges exactly (the aggregates'
// counts, exact sums, sums of squares, maxima and histogram buckets, and
// the per-episode pairs the Pareto view compares, when the run keeps
// them).
type ShardFile struct {
	// Format is [ShardFormat].
	Format int
	// Run identifies the run, as the caller describes it (the command
	// line, the build): every shard of a run must carry the same.
	Run map[string]string
	// Seed, Episodes (per setting, the whole run's), Checked and Prices
	// are the run's.
	Seed     uint64
	Episodes int
	Checked  bool
	Prices   Prices
	// Shard is the slice played.
	Shard Shard
	// Settings name the settings in order, for messages; Aggregates are
	// theirs.
	Settings   []string
	Aggregates []shardAggregate
	// Partial is set when the shard was interrupted; Done counts the
	// episodes that finished.
	Partial bool
	Done    int
	// Seconds is how long the shard ran (shown, never compared).
	Seconds float64
	// Tokens, Cost and Failed are each episode's tokens, cost
	// (micro-dollars) and failure per setting, over the shard's range;
	// nil when the run keeps none.
	Tokens [][]int64
	Cost   [][]int64
	Failed [][]bool
}

// shardAggregate is an [Aggregate] with its histograms' buckets exported.
type shardAggregate struct {
	Episodes, Halted, CompletedAfterAPIError, ViolatingEpisodes int
	Terminals                                                   map[loop.Terminal]int
	Violations                                                  map[string]int
	Explained                                                   map[string]int
	Sum, Max                                                    [numMetrics]int64
	SumSq                                                       [numMetrics]Uint128
	Hist                                                        [numMetrics][]uint64
	Examples                                                    []Episode
	Picks                                                       [numFeatures]Pick
}

// NewShardFile is r's results as a shard file, with run describing the
// run (see [ShardFile.Run]).
func NewShardFile(r *Result, run map[string]string, seconds float64) *ShardFile {
	f := &ShardFile{Format: ShardFormat, Run: run, Seed: r.Seed, Episodes: r.Episodes, Checked: r.Checked, Prices: r.Prices,
		Shard: r.Shard, Partial: r.Partial, Seconds: seconds}
	for _, s := range r.Settings {
		a := s.Aggregate
		sa := shardAggregate{Episodes: a.Episodes, Halted: a.Halted, CompletedAfterAPIError: a.CompletedAfterAPIError,
			ViolatingEpisodes: a.ViolatingEpisodes, Terminals: a.Terminals, Violations: a.Violations, Explained: a.Explained, Sum: a.Sum, Max: a.Max,
			SumSq: a.SumSq, Examples: a.Examples, Picks: a.Picks}
		for m := range numMetrics {
			sa.Hist[m] = a.Hist[m].counts
		}
		f.Settings = append(f.Settings, s.Setting.Name)
		f.Aggregates = append(f.Aggregates, sa)
		f.Done += a.Episodes
	}
	if r.pairs != nil {
		f.Tokens, f.Cost, f.Failed = r.pairs.tokens, r.pairs.cost, r.pairs.failed
	}
	return f
}

// Write writes f.
func (f *ShardFile) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if _, err := fmt.Fprintf(bw, "%s%d\n", shardMagic, f.Format); err != nil {
		return err
	}
	if err := gob.NewEncoder(bw).Encode(f); err != nil {
		return fmt.Errorf("shard file: %w", err)
	}
	return bw.Flush()
}

// ReadShardFile reads a shard file written by [ShardFile.Write]. A file
// that is not one, or of another format version, is refused.
func ReadShardFile(r io.Reader) (*ShardFile, error) {
	br := bufio.NewReader(r)
	head := make([]byte, len(shardMagic))
	if _, err := io.ReadFull(br, head); err != nil || string(head) != shardMagic {
		return nil, errors.New("not a loopsim shard file")
	}
	line, err := br.ReadString('\n')
	if err != nil {
		return nil, errors.New("shard file: truncated header")
	}
	v, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return nil, fmt.Errorf("shard file: bad format version %q", strings.TrimSpace(line))
	}
	if v != ShardFormat {
		return nil, fmt.Errorf("shard file of format %d; this loopsim reads format %d (merge with the loopsim that wrote the shards)", v, ShardFormat)
	}
	f := &ShardFile{}
	if err := gob.NewDecoder(br).Decode(f); err != nil {
		return nil, fmt.Errorf("shard file: %w", err)
	}
	if len(f.Aggregates) != len(f.Settings) {
		return nil, fmt.Errorf("shard file: %d aggregates for %d settings", len(f.Aggregates), len(f.Settings))
	}
	return f, nil
}

// aggregate is the shard's aggregate of setting i, rebuilt.
func (f *ShardFile) aggregate(i int) *Aggregate {
	sa := f.Aggregates[i]
	a := Aggregate{Episodes: sa.Episodes, Halted: sa.Halted, CompletedAfterAPIError: sa.CompletedAfterAPIError,
		ViolatingEpisodes: sa.ViolatingEpisodes, Terminals: sa.Terminals, Violations: sa.Violations, Explained: sa.Explained, Sum: sa.Sum, Max: sa.Max,
		SumSq: sa.SumSq, Examples: sa.Examples, Picks: sa.Picks}
	if a.Terminals == nil {
		a.Terminals = map[loop.Terminal]int{}
	}
	if a.Violations == nil {
		a.Violations = map[string]int{}
	}
	if a.Explained == nil {
		a.Explained = map[string]int{}
	}
	for m := range numMetrics {
		a.Hist[m] = Histogram{counts: sa.Hist[m]}
		for _, c := range sa.Hist[m] {
			a.Hist[m].n += c
		}
	}
	return &a
}

// MergeShards combines the shard files of one run, in any order, into
// the result the whole run gives: settings are the run's (the caller
// rebuilds them from the run's description and checks they are the ones
// the shards name). names name the files, for messages. Shards of
// different runs, a missing or repeated shard, or an interrupted one are
// refused with an error naming the files and what differs.
func MergeShards(settings []Setting, files []*ShardFile, names []string) (*Result, error) {
	if len(files) == 0 {
		return nil, errors.New("merge: no shard files")
	}
	first := files[0]
	if first.Shard.Count == 0 {
		return nil, fmt.Errorf("merge: %s is the whole run, not a shard", names[0])
	}
	byIndex := make([]int, first.Shard.Count)
	for i := range byIndex {
		byIndex[i] = -1
	}
	for k, f := range files {
		if err := sameRun(first, f, names[0], names[k]); err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if f.Partial {
			return nil, fmt.Errorf("merge: %s: shard %s was interrupted after %d of its episodes (partial): run it again", names[k], f.Shard, f.Done)
		}
		if j := byIndex[f.Shard.Index]; j >= 0 {
			return nil, fmt.Errorf("merge: shard %s given twice: %s and %s", f.Shard, names[j], names[k])
		}
		byIndex[f.Shard.Index] = k
	}
	var missing []string
	for i, k := range byIndex {
		if k < 0 {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("merge: of %d shards, shard %s missing (have %d files: %s)", first.Shard.Count, strings.Join(missing, ", "),
			len(files), strings.Join(names, ", "))
	}
	if len(settings) != len(first.Settings) {
		return nil, fmt.Errorf("merge: the run has %d settings, the shards %d", len(settings), len(first.Settings))
	}
	for i, s := range settings {
		if s.Name != first.Settings[i] {
			return nil, fmt.Errorf("merge: setting %d is %q in the run, %q in the shards", i, s.Name, first.Settings[i])
		}
	}
	res := &Result{Seed: first.Seed, Episodes: first.Episodes, Prices: first.Prices, Checked: first.Checked}
	for i, s := range settings {
		agg := NewAggregate()
		for _, k := range byIndex {
			agg.Merge(files[k].aggregate(i))
		}
		res.Settings = append(res.Settings, SettingResult{Setting: s, Aggregate: agg})
	}
	p := newPairs(len(settings), first.Episodes, 0, first.Episodes)
	for _, k := range byIndex {
		f := files[k]
		lo, hi := f.Shard.Range(f.Episodes)
		if (p == nil) != (f.Tokens == nil) || (p != nil && (len(f.Tokens) != len(settings) || len(f.Cost) != len(settings) || len(f.Failed) != len(settings))) {
			return nil, fmt.Errorf("merge: %s: the per-episode pairs do not match the run's size", names[k])
		}
		if p == nil {
			continue
		}
		for s := range settings {
			if len(f.Tokens[s]) != hi-lo || len(f.Cost[s]) != hi-lo || len(f.Failed[s]) != hi-lo {
				return nil, fmt.Errorf("merge: %s: %d pairs for episodes %d to %d", names[k], len(f.Tokens[s]), lo, hi-1)
			}
			copy(p.tokens[s][lo:hi], f.Tokens[s])
			copy(p.cost[s][lo:hi], f.Cost[s])
			copy(p.failed[s][lo:hi], f.Failed[s])
		}
	}
	res.pairs = p
	return res, nil
}

// sameRun reports how b (file nb) differs from a (file na) as a shard of
// the same run.
func sameRun(a, b *ShardFile, na, nb string) error {
	var diffs []string
	diff := func(what string, x, y any) {
		if fmt.Sprint(x) != fmt.Sprint(y) {
			diffs = append(diffs, fmt.Sprintf("%s %v against %v", what, y, x))
		}
	}
	diff("seed", a.Seed, b.Seed)
	diff("episodes per setting", a.Episodes, b.Episodes)
	diff("shard count", a.Shard.Count, b.Shard.Count)
	diff("invariants checked", a.Checked, b.Checked)
	diff("prices", a.Prices, b.Prices)
	diff("settings", a.Settings, b.Settings)
	keys := map[string]bool{}
	for k := range a.Run {
		keys[k] = true
	}
	for k := range b.Run {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if a.Run[k] != b.Run[k] {
			diffs = append(diffs, fmt.Sprintf("%s %q against %q", k, b.Run[k], a.Run[k]))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s is not a shard of the same run as %s: %s", nb, na, strings.Join(diffs, "; "))
	}
	return nil
}
