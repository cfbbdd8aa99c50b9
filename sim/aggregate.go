package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/properties"
)

// maxExamples is how many violating episodes an aggregate keeps.
const maxExamples = 10

// Aggregate is the streaming summary of a setting's episodes: counts,
// sums, maxima and histograms, whose size does not grow with the number
// of episodes. Aggregates merge in any order to the same result.
type Aggregate struct {
	// Episodes counts the episodes added.
	Episodes int
	// Halted counts the episodes that reached the iteration limit.
	Halted int
	// Terminals counts the episodes by terminal.
	Terminals map[loop.Terminal]int
	// CompletedAfterAPIError counts the episodes that ended completed
	// after an API error (counted in Terminals too): failures.
	CompletedAfterAPIError int
	// Sum and Max are each metric's total and largest value.
	Sum, Max [numMetrics]int64
	// SumSq is each metric's sum of squares, exact (128 bits), so that
	// the variance does not depend on the order episodes were added in.
	SumSq [numMetrics]Uint128
	// Hist is each metric's distribution over episodes.
	Hist [numMetrics]Histogram
	// Violations counts violations by invariant.
	Violations map[string]int
	// Explained counts the violations a known finding explains, by
	// finding (see [Violation.Finding]).
	Explained map[string]int
	// ViolatingEpisodes counts the episodes with at least one violation.
	ViolatingEpisodes int
	// Examples are the violating episodes of lowest index, at most ten.
	Examples []Episode
	// Picks are sample episodes, one per [Feature].
	Picks [numFeatures]Pick
}

// Feature is something an episode may show, for which an aggregate keeps
// a sample episode to plot.
type Feature int

// The features sample episodes are picked for.
const (
	// PeakFeature: the episode with the largest peak context.
	PeakFeature Feature = iota
	// AutoCompactFeature: an episode with an auto-compaction.
	AutoCompactFeature
	// OverflowFeature: an episode with a reactive compaction, or that
	// ended on the context limit.
	OverflowFeature
	// RetryFeature: an episode whose requests were retried.
	RetryFeature
	// HookFeature: an episode with a stop-hook block, a recovery or an
	// escalation.
	HookFeature

	numFeatures
)

var featureNames = [numFeatures]string{"largest peak context", "auto-compaction", "reactive compaction or overflow", "API retries", "stop hook or truncation"}

// String is the feature's name.
func (f Feature) String() string { return featureNames[f] }

// Pick is a sample episode: the one with the highest score for its
// feature, the lowest index among equals.
type Pick struct {
	// OK is set once an episode showed the feature.
	OK    bool
	Index int
	Seed  uint64
	Score int64
}

// better reports whether p should replace q.
func (p Pick) better(q Pick) bool {
	return p.OK && (!q.OK || p.Score > q.Score || (p.Score == q.Score && p.Index < q.Index))
}

// score is ep's score for f; ok is false when ep does not show f. Every
// feature but the peak prefers the earliest episode (score 0): a typical
// one rather than an extreme.
func (f Feature) score(ep *Episode) (int64, bool) {
	v := &ep.Values
	switch f {
	case PeakFeature:
		return v[PeakContext], true
	case AutoCompactFeature:
		return 0, v[AutoCompactions] > 0
	case OverflowFeature:
		return 0, v[ReactiveCompactions] > 0 || ep.Terminal == loop.PromptTooLong || ep.Terminal == loop.BlockingLimit
	case RetryFeature:
		return 0, v[Retries] > 0
	case HookFeature:
		return 0, v[StopHookBlocks]+v[Recoveries]+v[Escalations] > 0
	}
	return 0, false
}

// NewAggregate returns an empty aggregate.
func NewAggregate() *Aggregate {
	return &Aggregate{Terminals: map[loop.Terminal]int{}, Violations: map[string]int{}, Explained: map[string]int{}}
}

// Add counts one episode.
func (a *Aggregate) Add(ep *Episode) {
	a.Episodes++
	if ep.Halted {
		a.Halted++
	} else {
		a.Terminals[ep.Terminal]++
		if ep.AfterAPIError {
			a.CompletedAfterAPIError++
		}
	}
	for m, v := range ep.Values {
		a.Sum[m] += v
		a.SumSq[m].addSquare(v)
		a.Max[m] = max(a.Max[m], v)
		a.Hist[m].Add(v)
	}
	if len(ep.Violations) > 0 {
		a.ViolatingEpisodes++
		for _, v := range ep.Violations {
			a.Violations[v.Invariant]++
			if v.Finding != "" {
				a.Explained[v.Finding]++
			}
		}
		a.addExample(*ep)
	}
	for f := range numFeatures {
		if s, ok := f.score(ep); ok {
			if p := (Pick{OK: true, Index: ep.Index, Seed: ep.Seed, Score: s}); p.better(a.Picks[f]) {
				a.Picks[f] = p
			}
		}
	}
}

// ExplainedOf counts the violations of invariant inv that a known finding
// explains.
func (a *Aggregate) ExplainedOf(inv string) int {
	n := 0
	for _, f := range properties.KnownFindings() {
		if f.Invariant == inv {
			n += a.Explained[f.Name]
		}
	}
	return n
}

// explainedNote says how many of the violations of inv known findings
// explain, and which, or nothing when none does.
func explainedNote(a *Aggregate, inv string) string {
	var parts []string
	for _, f := range properties.KnownFindings() {
		if n := a.Explained[f.Name]; f.Invariant == inv && n > 0 {
			parts = append(parts, fmt.Sprintf("%s the known finding `%s`", thousands(int64(n)), f.Name))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func (a *Aggregate) addExample(ep Episode) {
	a.Examples = append(a.Examples, ep)
	slices.SortFunc(a.Examples, func(x, y Episode) int { return x.Index - y.Index })
	if len(a.Examples) > maxExamples {
		a.Examples = a.Examples[:maxExamples]
	}
}

// Merge adds o's episodes to a.
func (a *Aggregate) Merge(o *Aggregate) {
	a.Episodes += o.Episodes
	a.Halted += o.Halted
	a.CompletedAfterAPIError += o.CompletedAfterAPIError
	for t, n := range o.Terminals {
		a.Terminals[t] += n
	}
	for m := range numMetrics {
		a.Sum[m] += o.Sum[m]
		a.SumSq[m].add(o.SumSq[m])
		a.Max[m] = max(a.Max[m], o.Max[m])
		a.Hist[m].Merge(&o.Hist[m])
	}
	for inv, n := range o.Violations {
		a.Violations[inv] += n
	}
	for f, n := range o.Explained {
		a.Explained[f] += n
	}
	a.ViolatingEpisodes += o.ViolatingEpisodes
	for _, ep := range o.Examples {
		a.addExample(ep)
	}
	for f, p := range o.Picks {
		if p.better(a.Picks[f]) {
			a.Picks[f] = p
		}
	}
}

// Mean is metric m's mean over the episodes.
func (a *Aggregate) Mean(m Metric) float64 {
	if a.Episodes == 0 {
		return 0
	}
	return float64(a.Sum[m]) / float64(a.Episodes)
}

// Quantile is metric m's q-quantile over the episodes.
func (a *Aggregate) Quantile(m Metric, q float64) int64 { return a.Hist[m].Quantile(q) }

// Failures counts the episodes that failed (see [Episode.Failed]).
func (a *Aggregate) Failures() int {
	n := a.Halted + a.CompletedAfterAPIError
	for _, t := range FailureTerminals {
		n += a.Terminals[t]
	}
	return n
}

// Completions counts the episodes that ended completed and did not fail:
// a completion after an API error (the seed's path) is a failure, not a
// completion.
func (a *Aggregate) Completions() int {
	return a.Terminals[loop.Completed] - a.CompletedAfterAPIError
}

// FailureRate is the fraction of episodes that failed.
func (a *Aggregate) FailureRate() float64 { return a.rate(a.Failures()) }

// Rate is the fraction of episodes that ended with t.
func (a *Aggregate) Rate(t loop.Terminal) float64 { return a.rate(a.Terminals[t]) }

func (a *Aggregate) rate(n int) float64 {
	if a.Episodes == 0 {
		return 0
	}
	return float64(n) / float64(a.Episodes)
}

// InvariantNames lists the violated invariants in name order.
func (a *Aggregate) InvariantNames() []string {
	out := make([]string, 0, len(a.Violations))
	for n := range a.Violations {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
