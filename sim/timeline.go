package sim

import (
	"fmt"

	"github.com/loopsim/loopsim/loop"
)

// MarkKind is an event marked on a context timeline.
type MarkKind int

// The events a timeline marks.
const (
	MarkAutoCompact MarkKind = iota
	MarkReactiveCompact
	MarkRetry
	MarkTruncation // a recovery or an escalation
	MarkStopHookBlock
	MarkFallback
	MarkStreamCut // a stream cut after content, recovered

	numMarkKinds
)

var markNames = [numMarkKinds]string{"auto-compaction", "reactive compaction", "API retry", "output recovery / escalation", "stop-hook block", "model fallback", "stream cut recovered"}

// String is the mark kind's name.
func (k MarkKind) String() string { return markNames[k] }

// Point is the context at one iteration: the size of its main request.
type Point struct {
	Iteration int `json:"iteration"`
	Tokens    int `json:"tokens"`
}

// Mark is an event at an iteration, at the context it happened at.
type Mark struct {
	Kind      MarkKind `json:"kind"`
	Iteration int      `json:"iteration"`
	Tokens    int      `json:"tokens"`
}

// Timeline is one episode's context over its iterations, for plots.
type Timeline struct {
	// Title says why the episode was picked.
	Title string `json:"title"`
	// Index and Seed identify the episode.
	Index int    `json:"index"`
	Seed  uint64 `json:"seed"`
	// Terminal is how it ended; "halted" when it did not.
	Terminal string `json:"terminal"`
	// Limits are the policy's thresholds for the model.
	Limits loop.Limits `json:"limits"`
	Points []Point     `json:"points"`
	Marks  []Mark      `json:"marks"`
}

// Record replays the episode with seed under s and records its timeline.
func Record(s Setting, index int, seed uint64, title string) (Timeline, error) {
	tl := Timeline{Title: title, Index: index, Seed: seed, Limits: s.Policy.Limits(s.Model)}
	iteration, context := 0, 0
	mark := func(k MarkKind, tokens int) {
		tl.Marks = append(tl.Marks, Mark{Kind: k, Iteration: iteration, Tokens: tokens})
	}
	res, _, _, err := play(s, seed, func(e loop.Event) {
		switch x := e.(type) {
		case loop.IterationStart:
			iteration = x.Iteration
		case loop.RequestEvent:
			if x.Purpose == loop.PurposeMain && x.Attempt == 1 {
				context = x.InputTokens
				tl.Points = append(tl.Points, Point{Iteration: iteration, Tokens: context})
			}
		case loop.Compaction:
			switch {
			case x.OK && x.Trigger == loop.TriggerAuto:
				mark(MarkAutoCompact, x.TokensBefore)
			case x.OK:
				mark(MarkReactiveCompact, x.TokensBefore)
			}
		case loop.Retry:
			mark(MarkRetry, context)
		case loop.Fallback:
			mark(MarkFallback, context)
		case loop.TransitionEvent:
			switch x.Transition {
			case loop.MaxOutputTokensRecovery, loop.MaxOutputTokensEscalate:
				mark(MarkTruncation, context)
			case loop.StopHookBlocking:
				mark(MarkStopHookBlock, context)
			case loop.StreamErrorRecovery:
				mark(MarkStreamCut, context)
			}
		}
	}, false)
	if err != nil {
		return tl, fmt.Errorf("record episode %d: %w", index, err)
	}
	tl.Terminal = string(res.Terminal)
	if res.Halted {
		tl.Terminal = "halted"
	}
	return tl, nil
}

// Samples records the timelines of a setting's picked episodes, one per
// feature that some episode showed, each episode once.
func Samples(r SettingResult) ([]Timeline, error) {
	var out []Timeline
	seen := map[int]bool{}
	for f, p := range r.Aggregate.Picks {
		if !p.OK || seen[p.Index] {
			continue
		}
		seen[p.Index] = true
		tl, err := Record(r.Setting, p.Index, p.Seed, Feature(f).String())
		if err != nil {
			return nil, err
		}
		out = append(out, tl)
	}
	return out, nil
}
