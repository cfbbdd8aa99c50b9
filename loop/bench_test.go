package loop_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/loopsim/loopsim/loop"
)

// toolLoopModel answers every request with one tool_use until it has
// answered turns requests, then with text. It does no work of its own, so
// the benchmark measures the loop.
type toolLoopModel struct {
	turns, n int
	ids      []string
}

func (m *toolLoopModel) Stream(_ context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	m.n++
	if m.n >= m.turns {
		yield(loop.Block{Type: loop.BlockText, Text: "done"})
		return loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{InputTokens: req.InputTokens, OutputTokens: 10}}, nil
	}
	yield(loop.Block{Type: loop.BlockToolUse, ID: m.ids[m.n], Name: "Read", Input: "{}"})
	return loop.Response{StopReason: loop.StopToolUse, Usage: loop.Usage{InputTokens: req.InputTokens, OutputTokens: 20}}, nil
}

type constTools struct{}

func (constTools) Run(context.Context, loop.ToolCall) (loop.ToolOutcome, error) {
	return loop.ToolOutcome{Content: "ok", Tokens: 50}, nil
}

// BenchmarkTurn reports the loop's own cost per turn for episodes of 10,
// 100 and 1,000 turns, with the trace discarded and nothing observing:
// it should stay flat as the history grows. Each case reports ns/turn
// (wall), cpu-ns/turn (the process's CPU time, which other work on a
// shared machine does not inflate; with -cpu 1 it is the loop and its
// collector), and allocs/turn and B/turn.
//
//	go test ./loop -run X -bench 'BenchmarkTurn' -cpu 1 -count 6
//
// docs/testing.md ("The turn's cost") keeps the figures measured with it.
func BenchmarkTurn(b *testing.B) { benchmarkTurn(b, true, nil) }

// BenchmarkTurnTraced is BenchmarkTurn with the trace kept, as Run's
// caller gets it by default: every event and a state record per
// iteration are stored.
func BenchmarkTurnTraced(b *testing.B) { benchmarkTurn(b, false, nil) }

// BenchmarkTurnObserved is BenchmarkTurn with an Observer that sees every
// event (as the simulator runs the loop): the state records are built.
func BenchmarkTurnObserved(b *testing.B) {
	n := 0
	benchmarkTurn(b, true, func(loop.Event) { n++ })
}

func benchmarkTurn(b *testing.B, discard bool, observer func(loop.Event)) {
	for _, profile := range []string{"claude-code", "seed"} {
		for _, turns := range []int{10, 100, 1000} {
			b.Run(fmt.Sprintf("%s/turns=%d", profile, turns), func(b *testing.B) {
				p, _ := loop.Profile(profile)
				ids := make([]string, turns+1)
				for i := range ids {
					ids[i] = fmt.Sprintf("t%d", i)
				}
				b.ReportAllocs()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				cpu0, cpuOK := cpuTime()
				for b.Loop() {
					m := &toolLoopModel{turns: turns, ids: ids}
					cfg := loop.Config{Policy: p, Model: m, Primary: loop.ModelInfo{Name: "m", ContextWindow: 10_000_000, MaxOutputTokens: 64_000},
						Tools: constTools{}, DiscardTrace: discard, Observer: observer}
					res, err := loop.Run(context.Background(), cfg, []loop.Message{loop.UserText("go")})
					if err != nil || res.Terminal != loop.Completed {
						b.Fatalf("%v %s", err, res.Terminal)
					}
				}
				cpu1, cpuOK1 := cpuTime()
				runtime.ReadMemStats(&after)
				n := float64(b.N * turns)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/turn")
				if cpuOK && cpuOK1 {
					b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/n, "cpu-ns/turn")
				}
				b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/turn")
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/n, "B/turn")
			})
		}
	}
}
