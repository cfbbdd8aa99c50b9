package wirecheck

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two in-process agents that differ in one behaviour (one retries a
// failure three times, the other once) are found to differ, and the
// schedule is shrunk to a minimal one that shows it. A wide tolerance
// hides the request counts (which differ under any persistent fault),
// so the finding is where one completes and the other gives up.
func TestDifferFindsAndShrinks(t *testing.T) {
	o := Options{MaxRetries: 3, RetryAfters: []time.Duration{0}, Name: "patient"}
	res, err := Differ(context.Background(), InProcess(testAgent{maxRetries: 3}.run), InProcess(testAgent{maxRetries: 1}.run), o,
		DiffConfig{SearchConfig: SearchConfig{Seed: 9, Cases: 200}, Against: "impatient", Tolerance: 100})
	require.NoError(t, err)
	require.True(t, res.Real(), "the agents differ under a fault repeated twice; %d cases", res.Searched)
	f := res.Findings[len(res.Findings)-1]
	assert.Contains(t, f.Broken, DiffExit, "one completes, the other gives up")
	assert.True(t, f.Reproduced)
	assert.LessOrEqual(t, f.Minimal.Faults, 1, "one fault repeated is enough: %+v", f.Minimal.Schedule)
	require.NotNil(t, f.Minimal.Against)
	assert.Equal(t, 0, f.Minimal.Exit)
	assert.Equal(t, 1, f.Minimal.Against.Exit)
	assert.Equal(t, "impatient", res.Against)
	assert.Contains(t, f.Scenario, "differing in exit")
}

// The same agent against itself differs in nothing.
func TestDifferSameAgentNoDifference(t *testing.T) {
	a := InProcess(testAgent{maxRetries: 3}.run)
	res, err := Differ(context.Background(), a, a, Options{MaxRetries: 3, RetryAfters: []time.Duration{0}},
		DiffConfig{SearchConfig: SearchConfig{Seed: 4, Cases: 15}})
	require.NoError(t, err)
	assert.Empty(t, res.Findings)
	assert.Equal(t, 15, res.Searched)
	for _, c := range res.Cases {
		require.NotNil(t, c.Against)
	}
}

func TestDifferences(t *testing.T) {
	a := Outcome{Exit: 0, FinalEvent: "success", Requests: []string{"M:500", "M:text"}}
	b := Outcome{Exit: 0, FinalEvent: "success", Requests: []string{"M:500", "M:500", "M:text"}}
	assert.Equal(t, []string{DiffRequests}, Differences(a, b, 0))
	assert.Empty(t, Differences(a, b, 1))
	b.Exit, b.FinalEvent = 1, "error"
	assert.Equal(t, []string{DiffExit, DiffFinalEvent}, Differences(a, b, 1))
}
