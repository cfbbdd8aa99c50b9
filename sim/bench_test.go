package sim

import (
	"context"
	"fmt"
	"runtime"
	"sync"
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

// BenchmarkMemory is the heap of a simulation of 10^4 and of 10^6
// episodes (one-reply sessions, no faults, invariants checked): its peak
// while running (sampled every 2,048 episodes) and what the result keeps
// alive. Both flat if aggregation streams. Run it with -benchtime=1x.
func BenchmarkMemory(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprintf("episodes=%d", n), func(b *testing.B) {
			s := mustSetting(b, "claude-code")
			s.Workload.Faults = fakemodel.Faults{}
			s.Workload.Replies = fakemodel.LogNormal{Median: 1, Min: 1, Max: 1}
			var mu sync.Mutex
			var peak, live uint64
			sample := func() {
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				mu.Lock()
				peak = max(peak, m.HeapInuse)
				mu.Unlock()
			}
			for b.Loop() {
				runtime.GC()
				res, err := Run(context.Background(), Config{Settings: []Setting{s}, Episodes: n, Seed: 1, Prices: DefaultPrices,
					Check: CheckProperties, Progress: func(done, _ int) {
						if done%2048 == 0 {
							sample()
						}
					}})
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				live = max(live, m.HeapAlloc)
				runtime.KeepAlive(res)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(live)/(1<<20), "live-heap-MB")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/episode")
		})
	}
}
