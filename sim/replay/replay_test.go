package replay

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/sim"
	"github.com/loopsim/loopsim/transcript"
)

// growingSession is a session of n calls whose context grows by 4,000
// tokens a call from 20,000 (300 of them output), with a compaction
// before call compactAt (0: none) that leaves 35,000.
func growingSession(n, compactAt int) *transcript.Session {
	s := &transcript.Session{Name: "growing.jsonl", Format: transcript.ClaudeCode}
	ctx := 20_000
	for i := range n {
		if i == compactAt && compactAt > 0 {
			s.Events = append(s.Events, transcript.Event{Kind: transcript.EventCompaction, Compaction: transcript.Compaction{Auto: true, PreTokens: ctx}})
			ctx = 35_000
		}
		s.Events = append(s.Events, transcript.Event{Kind: transcript.EventCall, Call: transcript.Call{Model: "claude-opus-4-6",
			Usage: transcript.Usage{CacheRead: ctx - 3_700, CacheWrite: 3_700, Output: 300}, Tools: 1}})
		ctx += 4_000
	}
	return s
}

// TestReplaySessionReproducesTheContext: replayed under a policy that
// never compacts within the session, the context at each call is the
// real one.
func TestReplaySessionReproducesTheContext(t *testing.T) {
	s := growingSession(30, 0)
	set, err := sim.NewSetting("claude-code")
	require.NoError(t, err)
	r, err := Session(context.Background(), s, []sim.Setting{set}, sim.DefaultPrices)
	require.NoError(t, err)
	side := r.Sides[0]
	assert.Equal(t, "completed", side.Terminal)
	assert.Equal(t, 30, side.Replayed())
	require.Len(t, side.Contexts, 30)
	for i, c := range side.Contexts {
		assert.InDelta(t, r.Real.Contexts[i], c, 50, "call %d", i)
	}
	assert.Empty(t, side.Compactions)
	assert.InEpsilon(t, r.Real.Tokens, side.Tokens, 0.01)
}

// TestReplaySessionCounterfactual: the real session compacted at 164k
// (call 37); a larger auto-compact buffer compacts earlier and twice,
// and the replay of the profile as it is compacts where the real one did.
func TestReplaySessionCounterfactual(t *testing.T) {
	s := growingSession(60, 37)
	base, err := sim.NewSetting("claude-code")
	require.NoError(t, err)
	base, err = base.With("model", "claude-opus-4-6")
	require.NoError(t, err)
	cf, err := base.With("auto_compact_buffer", "80000")
	require.NoError(t, err)
	r, err := Session(context.Background(), s, []sim.Setting{base, cf}, sim.DefaultPrices)
	require.NoError(t, err)
	assert.Equal(t, []int{37}, r.Real.Compactions)
	require.Len(t, r.Sides[0].Compactions, 1)
	assert.InDelta(t, 37, r.Sides[0].Compactions[0], 2, "the profile as it is compacts where the real agent did")
	require.GreaterOrEqual(t, len(r.Sides[1].Compactions), 2)
	assert.Less(t, r.Sides[1].Compactions[0], 30)
	assert.Less(t, r.Sides[1].Peak, r.Sides[0].Peak)
	assert.Equal(t, "completed", r.Sides[1].Terminal)
	assert.Equal(t, 60, r.Sides[1].Replayed())
	assert.Len(t, r.Real.Notes, 1, "the real compaction's request is an estimate")

	dir := t.TempDir()
	file, err := Plot(dir, "replay", r)
	require.NoError(t, err)
	st, err := os.Stat(filepath.Join(dir, file))
	require.NoError(t, err)
	assert.Positive(t, st.Size())
}

// TestReplaySessionOverflows: a model with a window smaller than the
// session's context, under a policy that does not compact, ends
// prompt_too_long or recovers reactively: never a hang, never an error.
func TestReplaySessionOverflows(t *testing.T) {
	s := growingSession(40, 0)
	set, err := sim.NewSetting("seed")
	require.NoError(t, err)
	set, err = set.With("auto_compact", "false")
	require.NoError(t, err)
	set, err = set.With("model.context_window", "100000")
	require.NoError(t, err)
	r, err := Session(context.Background(), s, []sim.Setting{set}, sim.DefaultPrices)
	require.NoError(t, err)
	assert.NotEmpty(t, r.Sides[0].Terminal)
	assert.LessOrEqual(t, r.Sides[0].Peak, 100_000)
}

func TestReplaySessionNeedsCalls(t *testing.T) {
	set, err := sim.NewSetting("claude-code")
	require.NoError(t, err)
	_, err = Session(context.Background(), growingSession(1, 0), []sim.Setting{set}, sim.DefaultPrices)
	assert.ErrorContains(t, err, "nothing to replay")
}

func TestTokenTicks(t *testing.T) {
	var labels []string
	for _, tk := range (tokenTicks{}).Ticks(0, 250_000) {
		labels = append(labels, tk.Label)
	}
	assert.Equal(t, []string{"0", "50.0k", "100k", "150k", "200k", "250k"}, labels)
	assert.Len(t, (tokenTicks{}).Ticks(0, 286), 6)
}

// TestReplaySessionCatchesUpAShrink: where the real context shrank
// without a compaction, the replay stays above it only until the gains
// that follow have made up the difference.
func TestReplaySessionCatchesUpAShrink(t *testing.T) {
	s := growingSession(20, 0)
	shrink := 6_000 // call 10's context is 6,000 under the trend, and stays so
	for i, k := 0, 0; i < len(s.Events); i++ {
		if s.Events[i].Kind != transcript.EventCall {
			continue
		}
		if k >= 10 {
			s.Events[i].Call.Usage.CacheRead -= shrink
		}
		k++
	}
	steps, contexts, _ := Steps(s)
	assert.Zero(t, steps[9].Adds, "the shrink is not replayed as growth")
	set, err := sim.NewSetting("claude-code")
	require.NoError(t, err)
	r, err := Session(context.Background(), s, []sim.Setting{set}, sim.DefaultPrices)
	require.NoError(t, err)
	got := r.Sides[0].Contexts
	assert.Greater(t, got[10], contexts[10], "above the real context right after the shrink")
	assert.InDelta(t, contexts[19], got[19], 50, "caught up")
}
