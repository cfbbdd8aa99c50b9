package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/transcript"
)

// provenance is where each set of transcripts was published (the
// transcripts' README).
var provenance = map[string]TargetSource{
	"claude-code/spotter":    {Repository: "github.com/marot/spotter", Commit: "8cc42b0b", Licence: "MIT"},
	"claude-code/slopometry": {Repository: "github.com/TensorTemplar/slopometry", Commit: "22b9246a", Licence: "MIT"},
	"claude-code/sniffly":    {Repository: "github.com/chiphuyen/sniffly", Commit: "a237d7e9", Licence: "MIT"},
	"codex/localpush":        {Repository: "github.com/madshn/localpush", Commit: "219b5397", Licence: "MIT"},
}

// TestTargets: the targets kept in the repository are what the reader
// measures on the transcripts beside it (skipped without them); -update
// rewrites them.
func TestTargets(t *testing.T) {
	if _, err := os.Stat(transcripts); err != nil {
		t.Skipf("no transcripts at %s: %v", transcripts, err)
	}
	measured, err := MeasureTargets(transcripts, provenance)
	require.NoError(t, err)
	got, err := json.MarshalIndent(measured, "", "  ")
	require.NoError(t, err)
	got = append(got, '\n')
	if *update {
		require.NoError(t, os.WriteFile("calibration_targets.json", got, 0o644))
		return
	}
	assert.Equal(t, string(targetsJSON), string(got), "calibration_targets.json is stale: go test ./sim -run TestTargets -update")
}

// TestDefaultTargets: the embedded targets parse, hold the pooled set and
// every model of the transcripts, and every source has its provenance.
func TestDefaultTargets(t *testing.T) {
	tg, err := DefaultTargets()
	require.NoError(t, err)
	require.Contains(t, tg.Names(), PooledTargets)
	for _, m := range []string{"claude-opus-4-6", "claude-opus-4-5", "claude-haiku-4-5", "claude-sonnet-4", "gpt-5.3-codex"} {
		assert.Contains(t, tg.Names(), m)
	}
	for _, s := range tg.Sources {
		assert.NotEmpty(t, s.Repository, s.File)
		assert.NotEmpty(t, s.Commit, s.File)
		assert.Positive(t, s.Calls, s.File)
	}
	pooled, _ := tg.Set(PooledTargets)
	assert.Equal(t, 5, pooled.Sessions)
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, targetsJSON))
}

// TestCalibration: the default workload under the claude-code profile
// reproduces the pooled targets kept in the repository, each figure
// within its tolerance. It needs nothing outside the repository.
func TestCalibration(t *testing.T) {
	tg, err := DefaultTargets()
	require.NoError(t, err)
	pooled, ok := tg.Set(PooledTargets)
	require.True(t, ok)
	s, err := NewSetting("claude-code")
	require.NoError(t, err)
	simulated, err := Calibrate(context.Background(), s, 2_000, 1, 2)
	require.NoError(t, err)
	rows := CompareTargets(pooled.Figures, &simulated)
	require.Len(t, rows, len(figureTable()))
	for _, r := range rows {
		t.Logf("%-32s real %9.1f simulated %9.1f (%+5.1f%%, tolerance %2.0f%%)", r.Figure, r.Real, r.Simulated, 100*r.Diff(), 100*r.Tolerance)
		assert.True(t, r.OK, "%s: simulated %.1f, real %.1f: off by %+.1f%%, tolerance %.0f%%", r.Figure, r.Simulated, r.Real, 100*r.Diff(), 100*r.Tolerance)
	}
}

// callsSession is a session of n calls of one model, its context
// growing by 4,000 tokens a call.
func callsSession(n int) *transcript.Session {
	s := &transcript.Session{Name: "calls.jsonl", Format: transcript.ClaudeCode}
	for i := range n {
		s.Events = append(s.Events, transcript.Event{Kind: transcript.EventCall, Call: transcript.Call{Model: "claude-opus-4-6",
			Usage: transcript.Usage{CacheRead: 20_000 + 4_000*i, Output: 300}, Tools: 1}})
	}
	return s
}

// TestFiguresByModelCountsEachSessionOnce: a session counts once for
// each model it used, and once in the pooled figures.
func TestFiguresByModelCountsEachSessionOnce(t *testing.T) {
	s := callsSession(10)
	s.Events[3].Call.Model = "other"
	models, byModel := FiguresByModel([]*transcript.Session{s, callsSession(5)})
	assert.Equal(t, []string{"claude-opus-4-6", "other"}, models)
	assert.Equal(t, 2, byModel["claude-opus-4-6"].Sessions)
	assert.Equal(t, 1, byModel["other"].Sessions)
	var pooled Figures
	pooled.AddSession(s)
	assert.Equal(t, 1, pooled.Sessions)
	assert.Equal(t, 10, pooled.Tools.N())
}
