package properties

import (
	"fmt"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// Letter is one symbol of the exhaustive explorer's fault alphabet: a
// script step.
type Letter struct {
	// Name is the letter as a script spells it.
	Name string
	// Step is what the model does.
	Step fakemodel.Step
}

// Alphabet is the fault alphabet for the exhaustive explorer: one letter
// per step kind of fakemodel (a tool use, a plain answer and a reply
// reporting an input over the auto-compact threshold for Reply, a
// truncated answer and a truncated tool use for Truncated, content
// before the failure for fallback and stream errors), then the letters
// that repeat forever (a plain answer and a truncation), which can only
// end a script. The big-input letter's size comes from policy p's
// thresholds for model m.
func Alphabet(p loop.Policy, m loop.ModelInfo) (letters, forever []Letter) {
	read := []fakemodel.ToolUse{{Name: "Read"}}
	big := p.Limits(m).AutoCompactThreshold + 1
	letters = []Letter{
		{"tool", fakemodel.Step{ToolUses: read}},
		{"answer", fakemodel.Step{Text: "done"}},
		{"big_tool", fakemodel.Step{ToolUses: read, InputTokens: big}},
		{"truncated", fakemodel.Step{Kind: fakemodel.Truncated, Text: "long"}},
		{"truncated_tool", fakemodel.Step{Kind: fakemodel.Truncated, ToolUses: read}},
		{"empty", fakemodel.Step{Kind: fakemodel.Empty}},
		{"malformed", fakemodel.Step{Kind: fakemodel.MalformedToolUse}},
		{"prompt_too_long", fakemodel.Step{Kind: fakemodel.PromptTooLong}},
		{"request_too_large", fakemodel.Step{Kind: fakemodel.RequestTooLarge}},
		{"media_too_large", fakemodel.Step{Kind: fakemodel.MediaTooLarge}},
		{"image_size", fakemodel.Step{Kind: fakemodel.ImageSize}},
		{"overloaded", fakemodel.Step{Kind: fakemodel.Overloaded}},
		{"fallback", fakemodel.Step{Kind: fakemodel.FallbackTriggered, ToolUses: read, After: 1}},
		{"rate_limited", fakemodel.Step{Kind: fakemodel.RateLimited}},
		{"server_error", fakemodel.Step{Kind: fakemodel.ServerError}},
		{"connection", fakemodel.Step{Kind: fakemodel.ConnectionDropped}},
		{"invalid_request", fakemodel.Step{Kind: fakemodel.InvalidRequest}},
		{"other_status", fakemodel.Step{Kind: fakemodel.OtherStatus, Status: 404}},
		{"stream_error", fakemodel.Step{Kind: fakemodel.StreamError, ToolUses: read, After: 1}},
		{"abort", fakemodel.Step{Kind: fakemodel.Abort}},
	}
	forever = []Letter{
		{"answer*", fakemodel.Step{Text: "done", Repeat: fakemodel.Forever}},
		{"truncated*", fakemodel.Step{Kind: fakemodel.Truncated, Text: "long", Repeat: fakemodel.Forever}},
	}
	return letters, forever
}

// ExploreStats is what an exploration covered.
type ExploreStats struct {
	// Depth is the longest script explored.
	Depth int
	// Runs counts the scripts actually run.
	Runs int
	// Scripts counts the scripts of length at most Depth the runs stand
	// for: a run that never asked for more than its script holds is the
	// run of every longer script with that prefix.
	Scripts int64
	// Levels are the figures of each script length, from 0 up.
	Levels []LevelStats
}

// Explore runs every script of at most depth letters over letters (any
// of them possibly followed, as the last step, by one of forever) on the
// case base (its Script ignored), and calls visit with each run; visit
// returns false to stop.
//
// The one reduction is sound by determinism: the loop and the fakes
// decide from the answers the model gave, and the model's answers to the
// first n requests depend only on the first n steps. So a run of script s
// that never asked for more steps than s has is, event for event, the run
// of every script s+t; only a run that ran out of script is extended.
func Explore(base Case, letters, forever []Letter, depth int, visit func(Case, Run) bool) (ExploreStats, error) {
	if depth < 0 {
		return ExploreStats{}, fmt.Errorf("explore: depth %d is negative", depth)
	}
	if len(letters) == 0 {
		return ExploreStats{}, fmt.Errorf("explore: the alphabet has no letters")
	}
	e := explorer{base: base, letters: letters, forever: forever, depth: depth, visit: visit}
	e.stats.Depth = depth
	_, err := e.walk(nil)
	return e.stats, err
}

type explorer struct {
	base    Case
	letters []Letter
	forever []Letter
	depth   int
	visit   func(Case, Run) bool
	stats   ExploreStats
}

// walk runs the script and, if it ran out, every one-letter extension.
// It returns false when visit asked to stop.
func (e *explorer) walk(script []fakemodel.Step) (bool, error) {
	c := e.base
	c.Script = script
	r, exhausted, err := c.execute(nil)
	if err != nil {
		return false, fmt.Errorf("explore %v: %w", stepNames(script), err)
	}
	e.stats.Runs++
	for len(e.stats.Levels) <= len(script) {
		e.stats.Levels = append(e.stats.Levels, LevelStats{Length: len(e.stats.Levels)})
	}
	lv := &e.stats.Levels[len(script)]
	lv.Runs++
	if exhausted {
		lv.RanOut++
	}
	if !e.visit(c, r) {
		return false, nil
	}
	last := len(script) > 0 && script[len(script)-1].Repeat == fakemodel.Forever
	if !exhausted || last || len(script) == e.depth {
		e.stats.Scripts += e.continuations(len(script), last)
		return true, nil
	}
	e.stats.Scripts++ // the script itself
	for _, group := range [][]Letter{e.letters, e.forever} {
		for _, l := range group {
			next := append(script[:len(script):len(script)], l.Step)
			if ok, err := e.walk(next); !ok || err != nil {
				return ok, err
			}
		}
	}
	return true, nil
}

// continuations counts the scripts of at most depth steps that start
// with a given prefix of n steps (itself included): none but itself after
// a forever step; otherwise any m <= depth-n more letters, of which the
// last may be a forever one.
func (e *explorer) continuations(n int, endsForever bool) int64 {
	if endsForever {
		return 1
	}
	total, power := int64(0), int64(1)
	free := int64(len(e.letters))
	for m := 0; m <= e.depth-n; m++ {
		total += power // m letters
		if m < e.depth-n {
			total += power * int64(len(e.forever)) // m letters, then a forever one
		}
		power *= free
	}
	return total
}

// stepNames is a script written with FormatStep, for errors.
func stepNames(script []fakemodel.Step) []string {
	out := make([]string, len(script))
	for i, s := range script {
		out[i] = FormatStep(s)
	}
	return out
}
