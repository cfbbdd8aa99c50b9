package properties

import (
	"testing"
	"time"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// defaultDepth is the script length `go test` explores exhaustively: the
// depth whose exploration (every environment of both profiles) stays well
// under 30 s on one core, race detector included; -properties.depth runs
// another.
const defaultDepth = 3

// environment is a case without a script: the fakes and settings every
// script of an exploration runs against.
type environment struct {
	name string
	c    Case
}

// environments are the settings each profile is explored in: a plain one,
// and a hostile one (a long history already at the compaction threshold,
// a stop hook that blocks once, a compactor that fails once, a fallback
// model, two max turns).
func environments(p loop.Policy) []environment {
	primary := loop.ModelInfo{Name: primaryName, ContextWindow: 200_000, MaxOutputTokens: 64_000}
	plain := Case{Policy: p, Primary: primary, Initial: historyOf(2), Compactions: []fakemodel.CompactOutcome{{}}}
	hostile := Case{Policy: p, Primary: primary, Initial: bigHistory(12, 6_800),
		Fallback:    loop.ModelInfo{Name: fallbackName, ContextWindow: 200_000, MaxOutputTokens: 8_000},
		StopHooks:   []fakemodel.StopOutcome{{Block: "tests fail", Times: 1}, {}},
		Compactions: []fakemodel.CompactOutcome{{Err: "compaction failed", Times: 1}, {Keep: 2}},
		TokenBudget: 20_000}
	hostile.Policy.MaxTurns = 2
	return []environment{{"plain", plain}, {"hostile", hostile}}
}

// bigHistory is historyOf(n) with every message of the given size.
func bigHistory(n, tokens int) []loop.Message {
	msgs := historyOf(n)
	for i := range msgs {
		msgs[i].Tokens = tokens
	}
	return msgs
}

// TestExhaustive runs every script up to the depth over the fault
// alphabet, in every environment of every profile, and checks every
// invariant; violations a known finding explains are counted, any other
// fails. -v prints how many scripts each exploration checked.
func TestExhaustive(t *testing.T) {
	k := defaultDepth
	if *depth > 0 {
		k = *depth
	}
	for _, name := range loop.Profiles() {
		p, err := loop.Profile(name)
		require.NoError(t, err)
		for _, env := range environments(p) {
			t.Run(name+"/"+env.name, func(t *testing.T) {
				letters, forever := Alphabet(p, env.c.Primary)
				explained := map[string]int{}
				start := time.Now()
				stats, err := Explore(env.c, letters, forever, k, func(c Case, r Run) bool {
					for _, v := range Check(r) {
						why := explain(r, v)
						if !assert.NotEmpty(t, why, "%v\nscript:\n%s", v, FormatScript(c.Script)) {
							return false
						}
						explained[why+" ("+v.Invariant+")"]++
					}
					return true
				})
				require.NoError(t, err)
				e := explorer{letters: letters, forever: forever, depth: k}
				if want := e.continuations(0, false); !t.Failed() {
					assert.Equal(t, want, stats.Scripts, "the scripts the runs stand for against the space of depth %d", k)
				}
				t.Logf("depth %d: %d runs stand for all %d scripts (%v)", k, stats.Runs, stats.Scripts, time.Since(start).Round(time.Millisecond))
				for _, why := range sortedKeys(explained) {
					t.Logf("  explained: %s in %d runs", why, explained[why])
				}
			})
		}
	}
}
