package timeline

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

var update = flag.Bool("update", false, "rewrite the golden timeline in testdata/")

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

func write(t *testing.T, eps ...Episode) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, eps))
	return buf.Bytes()
}

func TestGoldenTimeline(t *testing.T) {
	got := write(t, Episode{Name: exampleScenario, Trace: goldenTrace(t, exampleScenario)})
	path := filepath.Join("testdata", exampleScenario+".json")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./timeline -update to write it")
	assert.Equal(t, string(want), string(got))
}

// checkFormat checks a file against the trace-event format: every event
// has a name, a known phase, pid and tid; slices a duration, at least 0;
// instants a scope; counters numeric arguments; slices on one track nest
// or follow one another, never half-overlap (Perfetto draws a track's
// slices as a stack).
func checkFormat(t *testing.T, b []byte) map[string]int {
	t.Helper()
	var f struct {
		TraceEvents     []map[string]json.RawMessage `json:"traceEvents"`
		DisplayTimeUnit string                       `json:"displayTimeUnit"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&f))
	require.NotEmpty(t, f.TraceEvents)
	phases := map[string]int{}
	type span struct{ start, end int64 }
	tracks := map[[2]int][]span{}
	for i, e := range f.TraceEvents {
		var name, ph string
		var pid, tid int
		var ts int64
		require.NoError(t, json.Unmarshal(e["name"], &name), "event %d: name", i)
		require.NoError(t, json.Unmarshal(e["ph"], &ph), "event %d: ph", i)
		require.NoError(t, json.Unmarshal(e["pid"], &pid), "event %d: pid", i)
		require.NoError(t, json.Unmarshal(e["tid"], &tid), "event %d: tid", i)
		assert.NotEmpty(t, name, "event %d", i)
		assert.Positive(t, pid, "event %d", i)
		phases[ph]++
		if ph == PhaseMetadata {
			assert.Contains(t, []string{"process_name", "thread_name", "thread_sort_index"}, name)
			continue
		}
		require.NoError(t, json.Unmarshal(e["ts"], &ts), "event %d: ts", i)
		assert.GreaterOrEqual(t, ts, int64(0), "event %d", i)
		switch ph {
		case PhaseComplete:
			var dur int64
			require.NoError(t, json.Unmarshal(e["dur"], &dur), "event %d: dur", i)
			assert.GreaterOrEqual(t, dur, int64(0), "event %d", i)
			k := [2]int{pid, tid}
			tracks[k] = append(tracks[k], span{ts, ts + dur})
		case PhaseInstant:
			var s string
			require.NoError(t, json.Unmarshal(e["s"], &s), "event %d: s", i)
			assert.Contains(t, []string{"t", "p", "g"}, s)
		case PhaseCounter:
			var args map[string]float64
			require.NoError(t, json.Unmarshal(e["args"], &args), "event %d: counter args", i)
			assert.NotEmpty(t, args)
		default:
			t.Errorf("event %d: phase %q", i, ph)
		}
	}
	for k, spans := range tracks {
		sort.Slice(spans, func(i, j int) bool {
			if spans[i].start != spans[j].start {
				return spans[i].start < spans[j].start
			}
			return spans[i].end > spans[j].end
		})
		var stack []span
		for _, s := range spans {
			for len(stack) > 0 && stack[len(stack)-1].end <= s.start {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 {
				assert.LessOrEqual(t, s.end, stack[len(stack)-1].end, "track %v: slice %v half-overlaps %v", k, s, stack[len(stack)-1])
			}
			stack = append(stack, s)
		}
	}
	return phases
}

func TestExampleTimelineFormat(t *testing.T) {
	phases := checkFormat(t, write(t, Episode{Name: exampleScenario, Trace: goldenTrace(t, exampleScenario)}))
	for _, ph := range []string{PhaseComplete, PhaseInstant, PhaseCounter, PhaseMetadata} {
		assert.Positive(t, phases[ph], "phase %s", ph)
	}
}

// Every golden trace of the library gives a valid timeline, and all of
// them in one file are one process each.
func TestLibraryTimelinesFormat(t *testing.T) {
	files, err := filepath.Glob(goldenDir + "/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var eps []Episode
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		eps = append(eps, Episode{Name: name, Trace: goldenTrace(t, name)})
	}
	b := write(t, eps...)
	checkFormat(t, b)
	var f File
	require.NoError(t, json.Unmarshal(b, &f))
	procs := map[int]bool{}
	for _, e := range f.TraceEvents {
		procs[e.Pid] = true
	}
	assert.Len(t, procs, len(eps))
}

// What the example's tracks hold: its requests, faults and transitions.
func TestExampleTimelineContent(t *testing.T) {
	tr := goldenTrace(t, exampleScenario)
	f := Build([]Episode{{Name: exampleScenario, Trace: tr}})
	var requests, faults, transitions, iterations []string
	for _, e := range f.TraceEvents {
		switch {
		case e.Ph == PhaseComplete && e.Tid == RequestTrack:
			requests = append(requests, e.Name)
		case e.Ph == PhaseComplete && e.Tid == IterationTrack:
			iterations = append(iterations, e.Name)
		case e.Ph == PhaseInstant && e.Cat == "fault":
			faults = append(faults, e.Name)
		case e.Ph == PhaseInstant && e.Cat == "transition":
			transitions = append(transitions, e.Name)
		}
	}
	assert.Equal(t, []string{"main #1", "main #1", "main #2", "compact #1", "main #1"}, requests)
	assert.Equal(t, []string{"fault: connection", "fault: prompt_too_long"}, faults)
	assert.Len(t, transitions, len(tr.Transitions()))
	assert.Equal(t, []string{"iteration 1", "iteration 2", "iteration 3"}, iterations)
}

func TestEmptyTimeline(t *testing.T) {
	var f struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(write(t), &f))
	assert.Empty(t, f.TraceEvents)
}
