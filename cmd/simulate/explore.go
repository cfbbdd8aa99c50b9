package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/properties"
)

func init() {
	register(command{name: "explore", summary: "check every fault script up to a depth, merging scripts that reach the same loop state", run: runExplore})
}

// maxExploreDepth is the deepest exploration explore accepts, and
// deepExploreDepth the deepest without -deep: past it an exploration
// takes hours (docs/model-checker.md has the figures).
const (
	maxExploreDepth  = 8
	deepExploreDepth = 6
)

// exploreGCPercent is the collector's target while exploring: each run
// makes a trace that is garbage once checked, so a larger heap between
// collections saves about a fifth of the CPU for a few hundred MB.
const exploreGCPercent = 400

func runExplore(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profile := fs.String("profile", "claude-code", "the policy profile to explore ("+strings.Join(loop.Profiles(), ", ")+")")
	depth := fs.Int("depth", 4, "the longest fault script, 0 to 6, or to 8 with -deep (claude-code on two cores: depth 4 about a second, 5 under 10 s, 6 under a minute, each more about 5 times longer)")
	deep := fs.Bool("deep", false, "allow -depth 7 and 8 (claude-code on two cores: depth 7 about 5 minutes, depth 8 some 20, estimated; see docs/model-checker.md)")
	seed := fs.Uint64("seed", 0, "the seed of the loop's retry jitter")
	env := fs.String("env", "all", "the environment: plain, hostile or all")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "scripts run at once")
	countLast := fs.Bool("count-last", false, "take the state digest at the last length too, to count its distinct states (about a tenth more CPU; without it that length shows - for states and merged)")
	plain := fs.Bool("plain", false, "explore without merging states (properties.Explore: every script whose prefixes all ran out), to see what the merging saves; one goroutine, no per-length seconds")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the exploration to this file (read it with go tool pprof)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: simulate explore [flags]

Runs every fault script of at most -depth steps over the fault alphabet
(properties.Alphabet) in each environment (properties.Environments) of
the profile, breadth first, and checks every invariant of each run. It
hashes the loop's state where each script runs out and does not extend
a script whose state a shorter or equal script already reached
(properties.ExploreStates says why that loses nothing). A line per
script length goes to stderr as it finishes; the table of scripts run,
distinct states and seconds per length to stdout. -depth 7 and 8 take
from one to tens of minutes on two cores and need -deep
(docs/model-checker.md has the figures). A violation no known finding
explains stops the exploration: its script is shrunk and printed as a
scenario file. -plain explores without merging (every script whose
prefixes all ran out), to show what the merging saves. The last
length's runs are never extended, so they run without the state probe
and its distinct states are not counted ("-") unless -count-last.

Exit status: 0 when no violation is found, 3 when one is, 2 on bad
flags, 1 when a run could not be played.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "explore: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *depth < 0 || *depth > maxExploreDepth {
		fmt.Fprintf(stderr, "explore: -depth %d: must be 0 to %d\n", *depth, maxExploreDepth)
		return 2
	}
	if *depth > deepExploreDepth && !*deep {
		fmt.Fprintf(stderr, "explore: -depth %d takes hours; give -deep as well to run it\n", *depth)
		return 2
	}
	if *workers < 1 {
		fmt.Fprintf(stderr, "explore: -workers %d: must be at least 1\n", *workers)
		return 2
	}
	p, err := loop.Profile(*profile)
	if err != nil {
		fmt.Fprintf(stderr, "explore: -profile: %v\n", err)
		return 2
	}
	var envs []properties.Environment
	for _, e := range properties.Environments(p) {
		if *env == "all" || *env == e.Name {
			envs = append(envs, e)
		}
	}
	if len(envs) == 0 {
		fmt.Fprintf(stderr, "explore: -env %q: must be plain, hostile or all\n", *env)
		return 2
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "explore: -cpuprofile: %v\n", err)
			return 1
		}
		defer func() {
			if err := stop(); err != nil {
				fmt.Fprintf(stderr, "explore: -cpuprofile: %v\n", err)
			}
		}()
	}
	defer debug.SetGCPercent(debug.SetGCPercent(exploreGCPercent))
	fmt.Fprintf(stdout, "profile %s, depth %d, seed %d\n", *profile, *depth, *seed)
	for _, e := range envs {
		e.Case.Seed = *seed
		explore := exploreEnvironment
		if *plain {
			explore = explorePlain
		}
		if code := explore(p.Name+"/"+e.Name, e.Case, exploreSettings{depth: *depth, workers: *workers, countLast: *countLast}, judge, stdout, stderr); code != 0 {
			return code
		}
	}
	return 0
}

// exploreEnvironment explores one environment and prints its table, or
// the shrunk scenario of the first violation judge leaves unexplained
// (judge returns a run's violations and those no known finding explains).
func exploreEnvironment(name string, base properties.Case, set exploreSettings, judge func(properties.Run) (all, unexplained []properties.Violation), stdout, stderr io.Writer) int {
	depth := set.depth
	letters, forever := properties.Alphabet(base.Policy, base.Primary)
	start := time.Now()
	level := start
	var seconds []float64
	verdict := newVerdicts(judge)
	stats, err := properties.ExploreStates(base, letters, forever, depth, properties.ExploreOptions{
		Workers:   set.workers,
		CountLast: set.countLast,
		Level: func(l properties.LevelStats) {
			seconds = append(seconds, time.Since(level).Seconds())
			states := fmt.Sprintf("%d new states, %d merged", l.States, l.Merged)
			if l.Unprobed {
				states = "states not counted"
			}
			fmt.Fprintf(stderr, "explore %s: length %d: %d scripts run, %d ran out, %s (%.1fs)\n",
				name, l.Length, l.Runs, l.RanOut, states, seconds[len(seconds)-1])
			level = time.Now()
		},
	}, verdict.visit)
	if code, stopped := verdict.stopped(name, err, letters, stdout, stderr); stopped {
		return code
	}
	fmt.Fprintf(stdout, "\n%s: %d scripts run stand for all %d scripts of at most %d steps (%.1fs)\n",
		name, stats.Runs, stats.Scripts, depth, time.Since(start).Seconds())
	fmt.Fprintln(stdout, "length  scripts run  ran out  distinct states  merged  seconds")
	states := 0
	for i, l := range stats.Levels {
		if l.Unprobed {
			fmt.Fprintf(stdout, "%6d  %11d  %7d  %15s  %6s  %7.1f\n", l.Length, l.Runs, l.RanOut, "-", "-", seconds[i])
			continue
		}
		fmt.Fprintf(stdout, "%6d  %11d  %7d  %15d  %6d  %7.1f\n", l.Length, l.Runs, l.RanOut, l.States, l.Merged, seconds[i])
		states += l.States
	}
	fmt.Fprintf(stdout, "%6s  %11d  %7s  %15d\n", "all", stats.Runs, "", states)
	printExplained(stdout, verdict.explained)
	return 0
}

// verdicts is what an exploration's visits found: how many runs broke
// each invariant in a way a known finding explains, and the first run
// that broke one no finding explains, which stops the exploration.
type verdicts struct {
	// judge returns a run's violations and those no known finding
	// explains.
	judge     func(properties.Run) (all, unexplained []properties.Violation)
	explained map[string]int
	found     *properties.Case
	broke     properties.Violation
}

func newVerdicts(judge func(properties.Run) (all, unexplained []properties.Violation)) *verdicts {
	return &verdicts{judge: judge, explained: map[string]int{}}
}

// visit judges one run; false stops the exploration at an unexplained
// violation.
func (v *verdicts) visit(c properties.Case, r properties.Run) bool {
	vs, un := v.judge(r)
	if len(un) > 0 {
		// a copy, so that c itself stays on the stack in every other
		// visit
		violating := c
		v.found, v.broke = &violating, un[0]
		return false
	}
	for _, x := range vs {
		v.explained[x.Invariant]++
	}
	return true
}

// stopped reports whether the exploration ended without its table: on
// err (exit 1), or at an unexplained violation, whose shrunk scenario
// it prints (exit 3).
func (v *verdicts) stopped(name string, err error, letters []properties.Letter, stdout, stderr io.Writer) (code int, stopped bool) {
	if err != nil {
		fmt.Fprintf(stderr, "explore %s: %v\n", name, err)
		return 1, true
	}
	if v.found == nil {
		return 0, false
	}
	unexplainedOnly := func(r properties.Run) []properties.Violation {
		_, un := v.judge(r)
		return un
	}
	return reportViolation(name, *v.found, v.broke, letters, unexplainedOnly, stdout, stderr), true
}

// exploreSettings are how explore runs each environment: the depth, the
// workers and whether the last length's states are counted.
type exploreSettings struct {
	depth, workers int
	countLast      bool
}

// explorePlain is exploreEnvironment with the plain explorer: no
// states are merged, so it shows what the merging saves. It runs on one
// goroutine (the workers and count-last settings do not apply) and
// times only the whole.
func explorePlain(name string, base properties.Case, set exploreSettings, judge func(properties.Run) (all, unexplained []properties.Violation), stdout, stderr io.Writer) int {
	letters, forever := properties.Alphabet(base.Policy, base.Primary)
	start := time.Now()
	verdict := newVerdicts(judge)
	depth := set.depth
	stats, err := properties.Explore(base, letters, forever, depth, verdict.visit)
	if code, stopped := verdict.stopped(name, err, letters, stdout, stderr); stopped {
		return code
	}
	fmt.Fprintf(stdout, "\n%s (plain, no merging): %d scripts run stand for all %d scripts of at most %d steps (%.1fs)\n",
		name, stats.Runs, stats.Scripts, depth, time.Since(start).Seconds())
	fmt.Fprintln(stdout, "length  scripts run  ran out")
	for _, l := range stats.Levels {
		fmt.Fprintf(stdout, "%6d  %11d  %7d\n", l.Length, l.Runs, l.RanOut)
	}
	fmt.Fprintf(stdout, "%6s  %11d\n", "all", stats.Runs)
	printExplained(stdout, verdict.explained)
	return 0
}

// printExplained lists the invariants known findings explained, with
// the runs that broke each.
func printExplained(stdout io.Writer, explained map[string]int) {
	for _, inv := range slices.Sorted(maps.Keys(explained)) {
		fmt.Fprintf(stdout, "explained by a known finding: %s in %d runs\n", inv, explained[inv])
	}
}

// judge returns r's violations and those no known finding explains.
func judge(r properties.Run) (all, unexplained []properties.Violation) {
	all = properties.Check(r)
	return all, properties.Unexplained(r, all)
}

// reportViolation shrinks the violating case (keeping v's invariant among
// what check reports) and prints it as a scenario.
func reportViolation(name string, c properties.Case, v properties.Violation, letters []properties.Letter,
	check func(properties.Run) []properties.Violation, stdout, stderr io.Writer) int {
	fmt.Fprintf(stderr, "explore %s: %s broken (%s) by the script %s\n", name, v.Invariant, v.Detail, strings.Join(strings.Fields(properties.FormatScript(c.Script)), " "))
	small, err := properties.ShrinkScript(c, letters, func(r properties.Run) bool {
		for _, u := range check(r) {
			if u.Invariant == v.Invariant {
				return true
			}
		}
		return false
	})
	if err != nil {
		fmt.Fprintf(stderr, "explore %s: %v\n", name, err)
		return 1
	}
	text, err := properties.ScenarioFile("explore-"+strings.ReplaceAll(v.Invariant, "_", "-"), "Found by simulate explore ("+name+"): "+v.Detail+".", "simulate explore", small)
	if err != nil {
		fmt.Fprintf(stderr, "explore %s: write the scenario: %v\n", name, err)
		return 1
	}
	fmt.Fprint(stdout, text)
	return 3
}
