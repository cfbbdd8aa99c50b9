package wirecheck

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A broken agent is found, its finding re-run (real), shrunk to at most
// three faults, and the minimal replayed; every case is in the result.
func TestSearchFindsAndShrinks(t *testing.T) {
	// the broken agent does not wait, so a long retry-after costs nothing
	// and keeps its immediate retry far from the slack on a loaded machine
	o := Options{MaxRetries: 3, RetryAfters: []time.Duration{0, time.Second}, Name: "broken"}
	var progress []Progress
	res, err := Search(context.Background(), InProcess(testAgent{maxRetries: 3, breaks: "retry-after-honoured"}.run), o,
		SearchConfig{Seed: 7, Cases: 100, Progress: func(p Progress) { progress = append(progress, p) }})
	require.NoError(t, err)
	require.Len(t, res.Findings, 1, "cases: %d", len(res.Cases))
	f := res.Findings[0]
	assert.False(t, f.Flaky)
	assert.Equal(t, []string{"retry-after-honoured"}, f.Broken)
	assert.LessOrEqual(t, f.Minimal.Faults, 3, "%+v", f.Minimal.Schedule)
	assert.LessOrEqual(t, f.Minimal.Faults, f.Found.Faults)
	assert.True(t, f.Reproduced, "the minimal, replayed, breaks the same")
	assert.Contains(t, f.Scenario, "answers:")
	assert.Equal(t, "wirecheck-broken.yaml", f.File)
	phases := map[string]int{}
	for _, c := range res.Cases {
		phases[c.Phase]++
	}
	assert.Equal(t, 1, phases[PhaseRecheck])
	assert.Equal(t, 1, phases[PhaseReplay])
	assert.Equal(t, f.Shrinks, phases[PhaseShrink])
	assert.Equal(t, res.Searched, phases[PhaseSearch])
	assert.True(t, res.Real())
	require.NotEmpty(t, progress)
	assert.Equal(t, len(res.Cases), len(progress), "a progress report a case")
	for i, p := range progress {
		want := 0
		if p.Phase != PhaseSearch || i == res.Searched-1 {
			want = 1 // the violation found, then re-run, shrunk and replayed
		}
		assert.Equal(t, want, p.Findings, "progress %d (%s): the violation under way counts", i, p.Phase)
	}
}

// The same seed draws the same schedules.
func TestSearchSeedReplays(t *testing.T) {
	o := Options{MaxRetries: 3, RetryAfters: []time.Duration{0}}
	run := func() []CaseResult {
		res, err := Search(context.Background(), InProcess(testAgent{maxRetries: 3}.run), o, SearchConfig{Seed: 42, Cases: 6})
		require.NoError(t, err)
		assert.Empty(t, res.Findings)
		assert.Equal(t, 6, res.Searched)
		return res.Cases
	}
	a, b := run(), run()
	require.Len(t, b, len(a))
	for i := range a {
		assert.Equal(t, a[i].Case(), b[i].Case())
	}
}

// A case that breaks an invariant once and not on its re-run is flaky:
// recorded, not shrunk, and the search goes on.
func TestSearchTellsFlakyFindings(t *testing.T) {
	var n atomic.Int64
	o := Options{MaxRetries: 3, RetryAfters: []time.Duration{0}}
	res, err := Search(context.Background(), InProcess(func(ctx context.Context, s Session) error {
		err := testAgent{maxRetries: 3}.run(ctx, s)
		if err != nil && n.Add(1) == 1 {
			return nil // the first failed session is reported as a success, once
		}
		return err
	}), o, SearchConfig{Seed: 3, Cases: 30, Progress: func(p Progress) {
		if p.Phase == PhaseRecheck {
			assert.Equal(t, [2]int{0, 1}, [2]int{p.Findings, p.Flaky}, "the re-run broke nothing: flaky, not a violation")
		}
	}})
	require.NoError(t, err)
	require.NotEmpty(t, res.Findings, "a case failed and was reported as a success")
	f := res.Findings[0]
	assert.True(t, f.Flaky)
	assert.Equal(t, []string{"failure-reported"}, f.Broken)
	assert.Zero(t, f.Shrinks)
	assert.False(t, res.Real())
	assert.Equal(t, 30, res.Searched, "the search went on after the flaky finding")
}

// Ctrl-C (ctx ending) stops the search and keeps what finished.
func TestSearchInterruptedKeepsCases(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := Options{MaxRetries: 3, RetryAfters: []time.Duration{0}}
	res, err := Search(ctx, InProcess(testAgent{maxRetries: 3}.run), o, SearchConfig{Seed: 5, Cases: 1000,
		Progress: func(p Progress) {
			if p.Done == 3 {
				cancel()
			}
		}})
	require.NoError(t, err)
	assert.True(t, res.Interrupted)
	assert.Equal(t, 3, res.Searched)
	assert.Len(t, res.Cases, 3)
}

func TestSearchRefusesNoBound(t *testing.T) {
	_, err := Search(context.Background(), InProcess(testAgent{}.run), Options{}, SearchConfig{Seed: 1})
	assert.Error(t, err)
	_, err = Search(context.Background(), InProcess(testAgent{}.run), Options{}, SearchConfig{Cases: 1})
	assert.Error(t, err)
	_, err = Search(context.Background(), InProcess(testAgent{}.run), Options{MaxRetries: -1}, SearchConfig{Seed: 1, Cases: 1})
	assert.Error(t, err)
}

// Every case played keeps the server's records and its server's start,
// for the exporters; the JSON report does not carry them.
func TestSearchKeepsRecordsForExport(t *testing.T) {
	res, err := Search(context.Background(), InProcess(testAgent{maxRetries: 3}.run), Options{MaxRetries: 3}, SearchConfig{Seed: 3, Cases: 2})
	require.NoError(t, err)
	require.NotEmpty(t, res.Cases)
	for _, c := range res.Cases {
		assert.Len(t, c.Records, len(c.Requests), "seed %d", c.Seed)
		assert.False(t, c.Started.IsZero(), "seed %d", c.Seed)
	}
	b, err := json.Marshal(res.Cases[0])
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"records"`)
	assert.NotContains(t, string(b), `"arrival"`)
}
