package properties

import (
	"testing"
	"time"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// defaultDepth is the script length `go test` explores exhaustively: the
// depth whose exploration (every environment of both profiles) stays well
// under 30 s on one core, race detector included; -properties.depth runs
// another.
const defaultDepth = 3

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
		for _, env := range Environments(p) {
			t.Run(name+"/"+env.Name, func(t *testing.T) {
				letters, forever := Alphabet(p, env.Case.Primary)
				explained := map[string]int{}
				start := time.Now()
				stats, err := Explore(env.Case, letters, forever, k, func(c Case, r Run) bool {
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
