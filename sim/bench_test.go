package sim

import (
	"fmt"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
)

// benchEpisodes plays b.N episodes of s on the calling goroutine and
// reports turns per second and the cost of a turn.
func benchEpisodes(b *testing.B, s Setting, check Checker) {
	b.ReportAllocs()
	turns := int64(0)
	for i := 0; b.Loop(); i++ {
		ep, err := RunEpisode(s, 1, i, DefaultPrices, check)
		if err != nil {
			b.Fatal(err)
		}
		turns += ep.Values[Turns]
	}
	b.ReportMetric(float64(turns)/b.Elapsed().Seconds(), "turns/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(turns), "ns/turn")
}

// BenchmarkTurns is the simulator's throughput on one core: the loop
// against the stochastic workload, default faults, per profile, with and
// without the invariant checks. Target: 200,000 turns/s for claude-code
// unchecked.
func BenchmarkTurns(b *testing.B) {
	for _, profile := range []string{"claude-code", "seed"} {
		for _, checked := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/checked=%t", profile, checked), func(b *testing.B) {
				var check Checker
				if checked {
					check = CheckProperties
				}
				benchEpisodes(b, mustSetting(b, profile), check)
			})
		}
	}
}

// BenchmarkTurnLength is the cost of a turn in episodes of 10, 100 and
// 1,000 turns (a fixed plan, no faults): flat if a turn's cost does not
// grow with the history.
func BenchmarkTurnLength(b *testing.B) {
	for _, profile := range []string{"claude-code", "seed"} {
		for _, n := range []int{10, 100, 1000} {
			b.Run(fmt.Sprintf("%s/turns=%d", profile, n), func(b *testing.B) {
				s := mustSetting(b, profile)
				s.Workload.Faults = fakemodel.Faults{}
				s.Workload.Replies = fakemodel.LogNormal{Median: float64(n), Min: n, Max: n}
				benchEpisodes(b, s, nil)
			})
		}
	}
}
