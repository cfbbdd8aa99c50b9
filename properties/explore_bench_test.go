package properties

import (
	"testing"

	"github.com/loopsim/loopsim/loop"
)

// BenchmarkExploreStates measures the model checker at depth 4 in each
// profile's environments: runs a second.
func BenchmarkExploreStates(b *testing.B) {
	for _, name := range loop.Profiles() {
		b.Run(name, func(b *testing.B) {
			p, err := loop.Profile(name)
			if err != nil {
				b.Fatal(err)
			}
			var runs int
			for b.Loop() {
				for _, env := range Environments(p) {
					letters, forever := Alphabet(p, env.Case.Primary)
					stats, err := ExploreStates(env.Case, letters, forever, 4, ExploreOptions{Workers: 1}, func(_ Case, r Run) bool {
						_ = Check(r)
						return true
					})
					if err != nil {
						b.Fatal(err)
					}
					runs += stats.Runs
				}
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}
