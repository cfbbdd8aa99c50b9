package properties

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// LevelStats is what an exploration did with the scripts of one length.
type LevelStats struct {
	// Length is the scripts' length.
	Length int `json:"length"`
	// Runs counts the scripts of this length that were run.
	Runs int `json:"runs"`
	// RanOut counts the runs that asked for a step past their script:
	// only they have extensions worth running.
	RanOut int `json:"ran_out"`
	// States counts the distinct states the runs that ran out reached (at
	// the call that found the script empty) and that no shorter script
	// had reached; zero for an exploration that does not merge.
	States int `json:"states,omitempty"`
	// Merged counts the runs that ran out into a state already explored:
	// their extensions were not run.
	Merged int `json:"merged,omitempty"`
	// Unprobed: the runs of this length (the last, without
	// [ExploreOptions.CountLast]) ran without the state probe, so States
	// and Merged are not counted.
	Unprobed bool `json:"unprobed,omitempty"`
}

// ExploreOptions tune [ExploreStates].
type ExploreOptions struct {
	// Workers is how many runs go at once; zero means GOMAXPROCS.
	Workers int
	// Level, if set, is told each length's figures once it is done.
	Level func(LevelStats)
	// CountLast takes the state digest at the last length too, to count
	// its distinct states. Its runs are never extended, so without it they
	// run without the state probe (no Observer, no OnModelCall, no
	// digest), about a tenth cheaper, and the length is Unprobed.
	CountLast bool
}

// ExploreStates is [Explore] as a model checker: it runs the scripts
// breadth first, length by length, takes the digest of the state each
// run reached when its script ran out (at the model call that asked for
// the step past the script), and extends only the runs whose state no
// shorter or equal-length script had reached (the runs of the last
// length, which are never extended, run without the probe unless
// opts.CountLast). visit is called once per
// run, in a fixed order (length, then the order of the alphabet), from
// one goroutine; it returns false to stop.
//
// Why merging is sound. The loop, its pipeline and the fakes are
// deterministic: what a run does from a model call on is a function of
// the state at that call and of the steps still to come. So two scripts
// whose runs ran out into equal states behave identically under every
// extension t: the runs of s1+t and s2+t are, from that call on, event
// for event the same, up to the names of IDs and the retry delays, and
// every invariant judges them alike. With breadth-first order every
// state is first reached by a shortest script, so it is explored with
// the largest remaining budget (depth - length) any script gives it, and
// skipping a later script that reaches it loses no behaviour within the
// depth.
//
// The digest is taken over a canonical form of what can influence the
// future (docs/model-checker.md argues each part): the request and the
// iteration's state in full, message by message, but with every message
// and tool-use ID renamed to the order of its first appearance (the loop
// and the fakes only compare IDs and make fresh ones, so no decision
// depends on their spelling); the retry layer's counters in this send;
// the iterations so far, or where only their slack against the
// script's bound can decide (slackOnly), that slack, compared apart:
// a state is merged only into one explored with no more slack; the
// fallback flag; the output total where a token budget can still read
// it; the fakes' cursors, counted only up to the call from which their
// last outcome repeats; and what each
// invariant remembers of the trace so far (its stretch counters, turn,
// the iteration's failures and emitted errors, the messages that left
// unaccounted). Left out, because no decision reads them: the number of
// requests and of messages made, the attempt's number, the rest of the
// state the iteration started from (only its diff is recorded), the
// auto-compact turn ID, the retry delays and the jitter
// stream's position, and the model's request number (it only names
// tool uses). A case with a tool-use summarizer is refused: its pending
// summary is not exposed.
func ExploreStates(base Case, letters, forever []Letter, depth int, opts ExploreOptions, visit func(Case, Run) bool) (ExploreStats, error) {
	if depth < 0 {
		return ExploreStats{}, fmt.Errorf("explore states: depth %d is negative", depth)
	}
	if len(letters) == 0 {
		return ExploreStats{}, fmt.Errorf("explore states: the alphabet has no letters")
	}
	if base.Summaries != nil {
		return ExploreStats{}, fmt.Errorf("explore states: the case has a tool-use summarizer, whose pending summary the state digest cannot see")
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	e := explorer{base: base, letters: letters, forever: forever, depth: depth}
	stats := ExploreStats{Depth: depth}
	taken := takenIDs(base.Initial)
	spec := probeSpec{taken: taken, exactIterations: !slackOnly(base, depth)}
	// seen holds, for each state explored, the least slack it was
	// explored with
	seen := map[stateDigest]int{}
	steps := make([]fakemodel.Step, 0, len(letters)+len(forever))
	for _, l := range append(letters[:len(letters):len(letters)], forever...) {
		steps = append(steps, l.Step)
	}
	if len(steps) > 256 {
		return ExploreStats{}, fmt.Errorf("explore states: %d letters; at most 256", len(steps))
	}
	// a script is kept as its letters' indices (a word), not its steps,
	// and only the frontier's are kept: a level's scripts are made as
	// they are run (depth 6 runs over a million)
	// every run's Models: Check only reads them
	models := base.models()
	frontier := []word{nil}
	for length := 0; length <= depth && len(frontier) > 0; length++ {
		scripts := levelScripts{frontier: frontier, letters: len(steps)}
		if length == 0 {
			scripts.letters = 0
		}
		level := LevelStats{Length: length, Unprobed: length == depth && !opts.CountLast}
		spec.unprobed = level.Unprobed
		var next []word
		stop := false
		err := runBatches(base, steps, scripts, workers, spec, func(script word, o outcome) bool {
			stats.Runs++
			level.Runs++
			c := base
			c.Script = o.script
			if !visit(c, c.finished(o.result, models)) {
				stop = true
				return false
			}
			last := length > 0 && int(script[length-1]) >= len(letters)
			if !o.ranOut || last {
				stats.Scripts += e.continuations(length, last)
				return true
			}
			level.RanOut++
			if level.Unprobed {
				stats.Scripts++ // the last length: the script alone
				return true
			}
			slack := length + 1 - o.iterations
			if least, ok := seen[o.digest]; o.mergeable && ok && least <= slack {
				level.Merged++
				stats.Scripts += e.continuations(length, false)
				return true
			}
			if o.mergeable {
				seen[o.digest] = slack
			}
			level.States++
			stats.Scripts++
			if length < depth {
				next = append(next, script)
			}
			return true
		})
		stats.Levels = append(stats.Levels, level)
		if opts.Level != nil {
			opts.Level(level)
		}
		if err != nil || stop {
			return stats, err
		}
		frontier = next
	}
	return stats, nil
}

// levelScripts are the scripts of one length: each word of the frontier followed
// by each letter, in that order (with no letters, the frontier itself).
type levelScripts struct {
	frontier []word
	letters  int
}

func (l levelScripts) len() int {
	if l.letters == 0 {
		return len(l.frontier)
	}
	return len(l.frontier) * l.letters
}

// at is the i-th script.
func (l levelScripts) at(i int) word {
	if l.letters == 0 {
		return l.frontier[i]
	}
	f := l.frontier[i/l.letters]
	return append(f[:len(f):len(f)], byte(i%l.letters))
}

// word is a script as the indices of its steps in the alphabet (the
// letters, then the forever ones).
type word []byte

// script spells w with the alphabet's steps.
func (w word) script(steps []fakemodel.Step) []fakemodel.Step {
	out := make([]fakemodel.Step, len(w))
	for i, l := range w {
		out[i] = steps[l]
	}
	return out
}

// outcome is one probed run: its script and result (the Case and Run
// are made from them when visited, so that a batch holds no copies of
// the policy).
type outcome struct {
	script []fakemodel.Step
	result *loop.Result
	ranOut bool
	// mergeable: digest holds the state (see stateProbe.take).
	mergeable bool
	digest    stateDigest
	// iterations are the run's at the digest's call.
	iterations int
}

// batchSize is how many runs are handed to use at a time; batchesAhead
// bounds how many finished or running batches (with their traces) wait
// to be used, so that the workers run the next batch while use checks
// the last.
const (
	batchSize    = 256
	batchesAhead = 3
)

// batch is a slice of the scripts, run by the workers; a worker claims
// the next script to run by counting next up, and done is closed when
// every run of it has finished.
type batch struct {
	scripts []word
	outs    []outcome
	errs    []error
	next    atomic.Int64
	left    atomic.Int64
	done    chan struct{}
}

// runBatches runs the scripts (spelled with steps) on base, workers at a
// time, and hands each outcome to use in the scripts' order, from the
// calling goroutine, while the workers go on with the next batches; use
// returns false to stop.
//
// Each batch is offered once to every worker, and the workers claim its
// scripts one by one with an atomic count: a few channel operations a
// batch rather than one (and a goroutine switch) a run.
func runBatches(base Case, steps []fakemodel.Step, scripts levelScripts, workers int, spec probeSpec, use func(word, outcome) bool) error {
	work := make(chan *batch, workers)
	ready := make(chan *batch, batchesAhead)
	quit := make(chan struct{})
	var stopped atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			// each worker reuses one probe's buffers from run to run
			var p stateProbe
			for b := range work {
				for !stopped.Load() {
					i := int(b.next.Add(1) - 1)
					if i >= len(b.scripts) {
						break
					}
					b.outs[i], b.errs[i] = probeRun(base, b.scripts[i].script(steps), spec, &p)
					if b.left.Add(-1) == 0 {
						close(b.done)
					}
				}
			}
		})
	}
	wg.Go(func() {
		defer close(work)
		defer close(ready)
		for from := 0; from < scripts.len(); from += batchSize {
			part := make([]word, min(batchSize, scripts.len()-from))
			for i := range part {
				part[i] = scripts.at(from + i)
			}
			b := &batch{scripts: part, outs: make([]outcome, len(part)), errs: make([]error, len(part)), done: make(chan struct{})}
			b.left.Store(int64(len(part)))
			select {
			case ready <- b:
			case <-quit:
				return
			}
			for range workers {
				select {
				case work <- b:
				case <-quit:
					return
				}
			}
		}
	})
	defer wg.Wait()
	defer close(quit)
	defer stopped.Store(true)
	for b := range ready {
		<-b.done
		for i, script := range b.scripts {
			if b.errs[i] != nil {
				return b.errs[i]
			}
			if !use(script, b.outs[i]) {
				return nil
			}
		}
	}
	return nil
}

// probeSpec is what every probe of an exploration shares.
type probeSpec struct {
	// taken are the starting history's IDs (takenIDs).
	taken map[string]bool
	// exactIterations: the digest holds the iterations.
	exactIterations bool
	// unprobed: run without the probe (see ExploreOptions.CountLast).
	unprobed bool
}

// slackOnly reports whether, exploring base to depth, only the slack
// between a run's iterations and its script's bound can decide anything:
// the harness's limit is then the script's bound plus one (no
// IterationLimit set, and no policy bound within depth+1), and
// termination's bound the script's. Merging a state reached with more
// slack into one explored with less is then sound: the runs agree event
// for event until the one with less slack exceeds its bound, which
// termination reports.
func slackOnly(base Case, depth int) bool {
	if base.IterationLimit != 0 {
		return false
	}
	pb, ok := policyIterationBound(base.Policy)
	return !ok || pb > depth+1
}

// probeRun runs one script with a state probe, p, reset for the run
// (its buffers kept).
func probeRun(base Case, script []fakemodel.Step, spec probeSpec, p *stateProbe) (outcome, error) {
	c := base
	c.Script = script
	if spec.unprobed {
		p = nil
	} else {
		p.reset(spec)
	}
	res, ranOut, err := c.play(p)
	switch {
	case err != nil:
	case p == nil:
		return outcome{script: script, result: res, ranOut: ranOut}, nil
	case p.err != nil:
		err = p.err
	case ranOut && !p.took:
		err = errors.New("the script ran out but no state digest was taken")
	default:
		return outcome{script: script, result: res, ranOut: ranOut, mergeable: p.mergeable, digest: p.digest, iterations: p.iterations}, nil
	}
	return outcome{}, fmt.Errorf("explore %v: %w", stepNames(script), err)
}
