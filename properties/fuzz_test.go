package properties

import (
	"math/rand/v2"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"pgregory.net/rapid"
)

// fuzzCorpusSeed seeds the stream the fuzz target's seed corpus is drawn
// from.
const fuzzCorpusSeed = 0x6c6f6f7073696d

// FuzzInvariants is the property of TestInvariantsHold and
// TestInvariantsHoldSwarm as a fuzz target: the fuzzer's bytes are
// rapid's choices (profile, swarm or not, then the case). The seed corpus
// (32 inputs drawn from a fixed stream) runs with every `go test`; `go
// test -fuzz=FuzzInvariants ./properties` explores beyond it.
func FuzzInvariants(f *testing.F) {
	rng := rand.New(rand.NewPCG(fuzzCorpusSeed, 0))
	for range 32 {
		seed := make([]byte, 8*rng.IntN(400))
		for i := range seed {
			seed[i] = byte(rng.Uint32())
		}
		f.Add(seed)
	}
	profiles := []loop.Policy{loop.Seed(), loop.ClaudeCode()}
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		p := rapid.SampledFrom(profiles).Draw(t, "profile")
		g := CaseGen(p)
		if rapid.Bool().Draw(t, "swarm policy") {
			g = SwarmCaseGen(p)
		}
		c := g.Draw(t, "case")
		r, err := c.Execute()
		if err != nil {
			t.Fatalf("%v\n%s", err, c)
		}
		for _, v := range Check(r) {
			if explain(r, v) == "" {
				t.Fatalf("%v\n%s", v, c)
			}
		}
	}))
}
