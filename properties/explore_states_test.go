package properties

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// statesDepth is the depth of the golden table of states per length: small
// enough for the default `go test`.
const statesDepth = 3

// TestExploreStatesGolden pins, for every profile and environment, how
// many scripts of each length the model checker ran, how many ran out,
// how many distinct states they reached and how many it merged
// (testdata/explore_states.golden; -update rewrites it). It also checks
// that the runs stand for the whole space of scripts, as the plain
// explorer's do.
func TestExploreStatesGolden(t *testing.T) {
	var b strings.Builder
	fmt.Fprintf(&b, "# depth %d: length runs ran_out states merged\n", statesDepth)
	for _, name := range loop.Profiles() {
		p, err := loop.Profile(name)
		require.NoError(t, err)
		for _, env := range Environments(p) {
			letters, forever := Alphabet(p, env.Case.Primary)
			stats, err := ExploreStates(env.Case, letters, forever, statesDepth, ExploreOptions{CountLast: true}, func(Case, Run) bool { return true })
			require.NoError(t, err)
			e := explorer{letters: letters, forever: forever, depth: statesDepth}
			assert.Equal(t, e.continuations(0, false), stats.Scripts, "%s/%s: the scripts the runs stand for", name, env.Name)
			fmt.Fprintf(&b, "%s/%s\n", name, env.Name)
			for _, l := range stats.Levels {
				fmt.Fprintf(&b, "  %d %d %d %d %d\n", l.Length, l.Runs, l.RanOut, l.States, l.Merged)
				assert.Equal(t, l.RanOut, l.States+l.Merged, "%s/%s length %d: every run that ran out is a new state or a merged one", name, env.Name, l.Length)
			}
		}
	}
	path := filepath.Join("testdata", "explore_states.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to write it")
	assert.Equal(t, string(want), b.String(), "states per length changed: if the loop's behaviour changed on purpose, rerun with -update")
}

// brokenRecoveries is a deliberately broken loop for the model checker's
// tests: it runs claude-code allowing four output-token recoveries in a
// stretch while the policy it claims (and is checked against) allows two.
// The third recovery in a stretch breaks three_recoveries; no script of
// fewer than three steps reaches it.
func brokenRecoveries(t *testing.T) (claimed loop.Policy, env Environment) {
	claimed, err := loop.Profile("claude-code")
	require.NoError(t, err)
	claimed.MaxOutputRecoveries = 2
	env = Environments(claimed)[0]
	env.Case.Policy.MaxOutputRecoveries = 4
	return claimed, env
}

// foundViolations explores env with explore and returns, per invariant
// broken (no known finding explaining it), the shortest script length
// that broke it.
func foundViolations(t *testing.T, claimed loop.Policy, env Environment, depth int,
	explore func(Case, []Letter, []Letter, int, func(Case, Run) bool) (ExploreStats, error)) (map[string]int, ExploreStats) {
	// no letter that repeats forever: one truncated* would reach the bug
	// in one step
	letters, _ := Alphabet(claimed, env.Case.Primary)
	shortest := map[string]int{}
	stats, err := explore(env.Case, letters, nil, depth, func(c Case, r Run) bool {
		r.Policy = claimed
		for _, v := range Unexplained(r, Check(r)) {
			if n, ok := shortest[v.Invariant]; !ok || len(c.Script) < n {
				shortest[v.Invariant] = len(c.Script)
			}
		}
		return true
	})
	require.NoError(t, err)
	return shortest, stats
}

// TestExploreStatesFindsWhatExploreFinds: on the broken loop, the model
// checker finds every invariant the plain explorer finds broken, at the
// same shortest length, while running fewer scripts; and the bug is out
// of reach below length 3.
func TestExploreStatesFindsWhatExploreFinds(t *testing.T) {
	claimed, env := brokenRecoveries(t)
	merged := func(c Case, l, f []Letter, d int, v func(Case, Run) bool) (ExploreStats, error) {
		return ExploreStates(c, l, f, d, ExploreOptions{}, v)
	}
	shallow, _ := foundViolations(t, claimed, env, 2, Explore)
	assert.Empty(t, shallow, "the seeded bug must need three steps")
	plain, plainStats := foundViolations(t, claimed, env, 3, Explore)
	states, stateStats := foundViolations(t, claimed, env, 3, merged)
	require.Contains(t, plain, "three_recoveries", "the plain explorer finds the seeded bug")
	assert.Equal(t, plain, states, "invariants broken, with the shortest script that broke each")
	assert.Less(t, stateStats.Runs, plainStats.Runs, "merging states saves runs")
	assert.Equal(t, plainStats.Scripts, stateStats.Scripts, "both stand for the whole space")
	t.Logf("plain %d runs, merged %d runs; broken: %v", plainStats.Runs, stateStats.Runs, slices.Sorted(maps.Keys(states)))
}

// TestExploreStatesRefusesASummarizer: the digest cannot see a pending
// tool-use summary, so such a case is refused rather than merged wrongly.
func TestExploreStatesRefusesASummarizer(t *testing.T) {
	p, err := loop.Profile("claude-code")
	require.NoError(t, err)
	env := Environments(p)[0]
	env.Case.Summaries = []fakemodel.SummaryOutcome{{}}
	letters, forever := Alphabet(p, env.Case.Primary)
	_, err = ExploreStates(env.Case, letters, forever, 1, ExploreOptions{}, func(Case, Run) bool { return true })
	assert.ErrorContains(t, err, "summarizer")
}

// outcomes are what an exploration found: per terminal reached and per
// invariant broken (known findings included), the shortest script that
// did it.
type outcomes map[string]int

func (o outcomes) note(key string, length int) {
	if n, ok := o[key]; !ok || length < n {
		o[key] = length
	}
}

// exploreOutcomes collects the outcomes of every run explore visits.
func exploreOutcomes(t *testing.T, env Environment, depth int,
	explore func(Case, []Letter, []Letter, int, func(Case, Run) bool) (ExploreStats, error)) (outcomes, ExploreStats) {
	letters, forever := Alphabet(env.Case.Policy, env.Case.Primary)
	found := outcomes{}
	stats, err := explore(env.Case, letters, forever, depth, func(c Case, r Run) bool {
		found.note("terminal "+string(r.Result.Terminal), len(c.Script))
		if r.Result.Halted {
			found.note("halted", len(c.Script))
		}
		for _, v := range Check(r) {
			found.note("broken "+v.Invariant, len(c.Script))
		}
		return true
	})
	require.NoError(t, err)
	return found, stats
}

// TestExploreStatesLosesNoOutcome is the pruning's soundness on every
// profile and environment: the model checker, which merges scripts that
// reach equal canonical states, finds every terminal and every broken
// invariant (known findings included) that the plain explorer, which
// merges nothing, finds, each first at the same script length, and
// nothing else.
func TestExploreStatesLosesNoOutcome(t *testing.T) {
	merged := func(c Case, l, f []Letter, d int, v func(Case, Run) bool) (ExploreStats, error) {
		return ExploreStates(c, l, f, d, ExploreOptions{}, v)
	}
	for _, name := range loop.Profiles() {
		p, err := loop.Profile(name)
		require.NoError(t, err)
		for _, env := range Environments(p) {
			plain, plainStats := exploreOutcomes(t, env, statesDepth, Explore)
			states, stateStats := exploreOutcomes(t, env, statesDepth, merged)
			assert.Equal(t, plain, states, "%s/%s: outcomes with their shortest script", name, env.Name)
			assert.Less(t, stateStats.Runs, plainStats.Runs, "%s/%s: merging saves runs", name, env.Name)
			t.Logf("%s/%s: plain %d runs, merged %d; outcomes %v", name, env.Name, plainStats.Runs, stateStats.Runs, slices.Sorted(maps.Keys(states)))
		}
	}
}

// Without CountLast the last length runs without the probe: the same
// runs, visited alike and in the same order, the same scripts stood for,
// and the same figures but for the last length's states, which are not
// counted.
func TestExploreStatesLastLengthUnprobed(t *testing.T) {
	p := loop.ClaudeCode()
	for _, env := range Environments(p) {
		letters, forever := Alphabet(p, env.Case.Primary)
		type seen struct {
			script string
			vs     []Violation
		}
		explore := func(countLast bool) (ExploreStats, []seen) {
			var runs []seen
			stats, err := ExploreStates(env.Case, letters, forever, 2, ExploreOptions{CountLast: countLast}, func(c Case, r Run) bool {
				runs = append(runs, seen{FormatScript(c.Script), Check(r)})
				return true
			})
			require.NoError(t, err)
			return stats, runs
		}
		counted, countedRuns := explore(true)
		unprobed, unprobedRuns := explore(false)
		assert.Equal(t, countedRuns, unprobedRuns, "%s: the same runs in the same order", env.Name)
		assert.Equal(t, counted.Runs, unprobed.Runs)
		assert.Equal(t, counted.Scripts, unprobed.Scripts)
		require.Len(t, unprobed.Levels, 3)
		assert.Equal(t, counted.Levels[:2], unprobed.Levels[:2], "%s: the lengths before the last are probed", env.Name)
		last, want := unprobed.Levels[2], counted.Levels[2]
		assert.True(t, last.Unprobed)
		assert.False(t, want.Unprobed)
		assert.Equal(t, want.Runs, last.Runs)
		assert.Equal(t, want.RanOut, last.RanOut)
		assert.Positive(t, want.States)
		assert.Zero(t, last.States)
		assert.Zero(t, last.Merged)
	}
}
