package replay_test

import (
	"context"
	"fmt"

	"github.com/loopsim/loopsim/sim"
	"github.com/loopsim/loopsim/sim/replay"
	"github.com/loopsim/loopsim/transcript"
)

// A real session of 60 calls whose context grows by 4,000 tokens a call
// to 256k (a model with a larger window, which never compacted),
// replayed under claude-code on a 200,000-token window and on a
// 100,000-token one: the same calls, compacted once and seven times.
func ExampleSession() {
	s := &transcript.Session{Name: "session.jsonl", Format: transcript.ClaudeCode}
	for i := range 60 {
		s.Events = append(s.Events, transcript.Event{Kind: transcript.EventCall, Call: transcript.Call{Model: "claude-opus-4-6",
			Usage: transcript.Usage{CacheRead: 20_000 + 4_000*i, CacheWrite: 300, Output: 300}, Tools: 1}})
	}
	base, err := sim.NewSetting("claude-code")
	if err != nil {
		fmt.Println(err)
		return
	}
	small, err := base.With("model.context_window", "100000")
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := replay.Session(context.Background(), s, []sim.Setting{base, small}, sim.DefaultPrices)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, side := range append([]replay.Side{r.Real}, r.Sides...) {
		fmt.Printf("%s: %d calls replayed, %d compactions, peak %s\n", side.Label, side.Replayed(), len(side.Compactions), sim.FormatTokens(float64(side.Peak)))
	}

	// Output:
	// real session: 60 calls replayed, 0 compactions, peak 256k
	// claude-code: 60 calls replayed, 1 compactions, peak 164k
	// claude-code model.context_window=100000: 60 calls replayed, 7 compactions, peak 64.3k
}
