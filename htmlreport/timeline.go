package htmlreport

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopsim/loopsim/internal/simclock"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/timeline"
)

// Timeline is one episode over simulated time: lanes of spans (the
// iterations, the requests, the tool calls), marks at instants (faults,
// retries, compactions, transitions, the terminal) and a counter (the
// context size), drawn as SVG a reader scrolls horizontally.
type Timeline struct {
	// Title names the episode; Note, if set, is shown under it.
	Title string
	Note  string
	Lanes []Lane
	Marks []Mark
	// Counter is drawn above the lanes when it has points.
	Counter Counter
	// End is when the episode ended.
	End time.Duration
	// Ordinal says the times are positions, not durations: position k
	// is k milliseconds, drawn a wide slot each and labelled "#k+1" (a
	// sequence of requests whose times are not known).
	Ordinal bool
}

// Slot is the time of position k of an ordinal timeline.
func Slot(k int) time.Duration { return time.Duration(k) * time.Millisecond }

// Lane is a row of spans.
type Lane struct {
	Name  string
	Spans []Span
}

// Span is something that took time: a slice of a lane.
type Span struct {
	Start, End time.Duration
	// Label is written in the span where it fits; Detail shows on hover.
	Label, Detail string
	// Class colours it: "iteration", "request", "tool", "failed".
	Class string
}

// Mark is an instant: a fault, a retry, a compaction, a transition.
type Mark struct {
	At     time.Duration
	Label  string
	Detail string
	// Class colours it: the event's category ("fault", "retry",
	// "compaction", "transition", "hook", "terminal", "fallback",
	// "withheld").
	Class string
}

// Counter is a value over time, drawn as steps.
type Counter struct {
	Name   string
	Points []Point
}

// Point is a counter's value from At on.
type Point struct {
	At    time.Duration
	Value int
}

// FromTrace is the timeline of one episode's trace, as timeline/ lays
// it out for Perfetto (the times from internal/simclock): a lane each
// for the iterations, the requests and the tool slots, the loop's
// instants as marks and the context size as the counter.
func FromTrace(title string, tr loop.Trace) *Timeline {
	f := timeline.Build([]timeline.Episode{{Name: title, Trace: tr}})
	tl := &Timeline{Title: title, Counter: Counter{Name: timeline.ContextCounter}}
	names := map[int]string{}
	lanes := map[int]*Lane{}
	var tids []int
	lane := func(tid int) *Lane {
		if l, ok := lanes[tid]; ok {
			return l
		}
		lanes[tid] = &Lane{}
		tids = append(tids, tid)
		return lanes[tid]
	}
	for _, tid := range []int{timeline.IterationTrack, timeline.RequestTrack} {
		lane(tid)
	}
	for _, e := range f.TraceEvents {
		at := time.Duration(e.Ts) * time.Microsecond
		switch e.Ph {
		case timeline.PhaseMetadata:
			if e.Name == "thread_name" {
				names[e.Tid], _ = e.Args["name"].(string)
			}
		case timeline.PhaseComplete:
			end := at
			if e.Dur != nil {
				end += time.Duration(*e.Dur) * time.Microsecond
			}
			class := e.Cat
			if _, failed := e.Args["error"]; failed || e.Args["is_error"] == true {
				class = "failed"
			}
			l := lane(e.Tid)
			l.Spans = append(l.Spans, Span{Start: at, End: end, Label: e.Name, Detail: detail(e.Name, e.Args), Class: class})
			tl.End = max(tl.End, end)
		case timeline.PhaseInstant:
			tl.Marks = append(tl.Marks, Mark{At: at, Label: e.Name, Detail: detail(e.Name, e.Args), Class: e.Cat})
			tl.End = max(tl.End, at)
		case timeline.PhaseCounter:
			if v, ok := e.Args["tokens"].(int); ok {
				tl.Counter.Points = append(tl.Counter.Points, Point{At: at, Value: v})
			}
		}
	}
	slices.Sort(tids)
	for _, tid := range tids {
		l := lanes[tid]
		l.Name = names[tid]
		if l.Name == "" {
			l.Name = fmt.Sprintf("track %d", tid)
		}
		tl.Lanes = append(tl.Lanes, *l)
	}
	_, end := simclock.Offsets(tr)
	tl.End = max(tl.End, end)
	return tl
}

// detail is a hover text: the name and the arguments, by name.
func detail(name string, args map[string]any) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(name)
	for _, k := range keys {
		fmt.Fprintf(&b, "\n%s: %v", k, args[k])
	}
	return b.String()
}
