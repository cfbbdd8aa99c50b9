package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/sim"
)

// The violations a known finding explains are named in the lines a run
// prints: beside each example, and in the count of each setting.
func TestViolationsNameKnownFindings(t *testing.T) {
	v := sim.Violation{Invariant: "termination", Event: -1, Detail: "halted", Finding: "stop_hook_blocks_between_tool_turns"}
	assert.Equal(t, " (known finding stop_hook_blocks_between_tool_turns)", knownFinding(v))
	assert.Empty(t, knownFinding(sim.Violation{Invariant: "termination"}))

	a := sim.NewAggregate()
	assert.Empty(t, explainedBrief(a), "no violation")
	a.Add(&sim.Episode{Index: 3, Seed: 9, Halted: true, Violations: []sim.Violation{v}})
	assert.Equal(t, " (every violation a known finding: stop_hook_blocks_between_tool_turns)", explainedBrief(a))
	a.Add(&sim.Episode{Index: 4, Seed: 10, Halted: true, Violations: []sim.Violation{{Invariant: "termination", Event: -1, Detail: "halted"}}})
	assert.Equal(t, " (1 of 2 violations known findings: stop_hook_blocks_between_tool_turns)", explainedBrief(a))

	s, err := sim.NewSetting("codex")
	assert.NoError(t, err)
	var out bytes.Buffer
	n := writeViolations(&out, &sim.Result{Settings: []sim.SettingResult{{Setting: s, Aggregate: a}}})
	assert.Equal(t, 2, n)
	assert.Contains(t, out.String(), "codex: 2 episodes broke invariants (1 of 2 violations known findings: stop_hook_blocks_between_tool_turns); the first:")
	assert.Contains(t, out.String(), "episode 3: termination (known finding stop_hook_blocks_between_tool_turns): halted")
}
