package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/properties"
)

// The swarm episode that never ended under codex (issue 37: a stop hook
// that keeps blocking, tool turns between its blocks) is named by the
// known finding that explains it, and an aggregate counts it as
// explained: a swarm whose every violation is a known finding says so.
func TestViolationsNameTheirKnownFinding(t *testing.T) {
	s := mustSetting(t, "codex", "workload.swarm=true")
	const seed = 0x81e45c24dd03ac9d
	res, initial, err := Replay(s, seed)
	require.NoError(t, err)
	require.True(t, res.Halted, "the episode never ends: %s", res.Terminal)
	vs := CheckProperties(&s, initial, res)
	require.Len(t, vs, 1, "%v", vs)
	assert.Equal(t, LivenessInvariant, vs[0].Invariant)
	assert.Equal(t, properties.FindingStopHookBlocksBetweenToolTurns, vs[0].Finding)

	a := NewAggregate()
	a.Add(&Episode{Index: 0, Seed: seed, Halted: true, Violations: vs})
	a.Add(&Episode{Index: 1, Seed: 1, Halted: true, Violations: []Violation{{Invariant: LivenessInvariant, Event: -1, Detail: "halted"}}})
	assert.Equal(t, 2, a.Violations[LivenessInvariant])
	assert.Equal(t, 1, a.ExplainedOf(LivenessInvariant), "one of the two violations is explained")
	assert.Equal(t, map[string]int{properties.FindingStopHookBlocksBetweenToolTurns: 1}, a.Explained)
	assert.Equal(t, " (1 the known finding `stop_hook_blocks_between_tool_turns`)", explainedNote(a, LivenessInvariant))
	assert.Empty(t, explainedNote(a, "paired_tools"), "no finding explains another invariant's violations")

	b := NewAggregate()
	b.Merge(a)
	b.Merge(a)
	assert.Equal(t, 2, b.ExplainedOf(LivenessInvariant), "merged aggregates add their explained counts")
	f := NewShardFile(&Result{Settings: []SettingResult{{Setting: s, Aggregate: b}}}, nil, 0)
	assert.Equal(t, b.Explained, f.aggregate(0).Explained, "a shard file keeps the explained counts")
}
