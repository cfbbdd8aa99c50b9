package sim_test

import (
	"context"
	"fmt"

	"github.com/loopsim/loopsim/sim"
)

// A simulation plays the same seeded episodes under each setting and
// aggregates what they did; here claude-code against a variant whose
// stop hooks may block only twice in a row. The figures depend on the
// workload; the example prints only what does not. Each Aggregate holds
// the rates (Rate, FailureRate), the metrics' means and quantiles (Mean,
// Quantile) and the invariants' violations that sim's report compares.
func ExampleRun() {
	base, err := sim.NewSetting("claude-code")
	if err != nil {
		fmt.Println(err)
		return
	}
	capped, err := base.With("stop_hook_block_cap", "2")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sim.Run(context.Background(), sim.Config{Settings: []sim.Setting{base, capped}, Episodes: 50, Seed: 1, Workers: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Settings {
		a := s.Aggregate
		ended := a.Halted
		for _, n := range a.Terminals {
			ended += n
		}
		fmt.Printf("%s: %d episodes, %d ended\n", s.Setting.Name, a.Episodes, ended)
	}

	// Output:
	// claude-code: 50 episodes, 50 ended
	// claude-code stop_hook_block_cap=2: 50 episodes, 50 ended
}
