package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/loopsim/loopsim/otelexport"
	"github.com/loopsim/loopsim/properties/wirecheck"
)

// checkAgentRuns are the cases of a check-agent run as agent runs to
// export, in the order they were played: each named by its search seed
// and phase ("seed 42 search", "seed 42 recheck", "seed 42 shrink 3",
// "seed 42 replay (minimal)": the minimal schedule played once more),
// its outcome the invariants it broke ("broke: ..."), "ok", or why it
// could not be judged.
func checkAgentRuns(res *wirecheck.Result) []otelexport.AgentRun {
	runs := make([]otelexport.AgentRun, 0, len(res.Cases))
	shrinks := map[uint64]int{}
	for _, c := range res.Cases {
		name := fmt.Sprintf("seed %d %s", c.Seed, c.Phase)
		switch c.Phase {
		case wirecheck.PhaseShrink:
			shrinks[c.Seed]++
			name += fmt.Sprintf(" %d", shrinks[c.Seed])
		case wirecheck.PhaseReplay:
			name += " (minimal)"
		}
		outcome := "ok"
		switch {
		case c.Error != "":
			outcome = "error"
		case len(c.Broken) > 0:
			outcome = "broke: " + strings.Join(c.Broken, ", ")
		}
		runs = append(runs, otelexport.AgentRun{Name: name, Agent: res.Agent, Records: c.Records, Exit: c.Exit, Outcome: outcome,
			Error: c.Error, Start: c.Started, Elapsed: time.Duration(c.Seconds * float64(time.Second))})
	}
	return runs
}
