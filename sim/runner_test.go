package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

func mustSetting(t testing.TB, profile string, params ...string) Setting {
	t.Helper()
	s, err := NewSetting(profile)
	require.NoError(t, err)
	for _, p := range params {
		k, v, _ := strings.Cut(p, "=")
		s, err = s.With(k, v)
		require.NoError(t, err)
	}
	return s
}

// TestResultsDoNotDependOnParallelism: the same root seed gives the same
// aggregates on one worker as on several.
func TestResultsDoNotDependOnParallelism(t *testing.T) {
	settings := []Setting{mustSetting(t, "claude-code"), mustSetting(t, "seed", "workload.swarm=true")}
	var first *Result
	for _, workers := range []int{1, 3, 8} {
		res, err := Run(context.Background(), Config{Settings: settings, Episodes: 150, Seed: 42, Workers: workers, Prices: DefaultPrices})
		require.NoError(t, err)
		if first == nil {
			first = res
			continue
		}
		for i := range res.Settings {
			assert.Equal(t, first.Settings[i].Aggregate, res.Settings[i].Aggregate,
				"setting %s: %d workers aggregate differently from 1", settings[i].Name, workers)
		}
	}
}

func TestSeedsDiffer(t *testing.T) {
	seen := map[uint64]bool{}
	for root := range uint64(4) {
		for i := range 1_000 {
			s := EpisodeSeed(root, i)
			st := StreamsOf(s)
			for _, x := range []uint64{s, st.Model.Workload, st.Model.Faults, st.Jitter} {
				require.False(t, seen[x], "seed %#x drawn twice", x)
				seen[x] = true
			}
		}
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	bad := mustSetting(t, "claude-code")
	bad.Workload.Output.Median = -1
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no settings", Config{Episodes: 1}, "no settings"},
		{"no episodes", Config{Settings: []Setting{mustSetting(t, "seed")}}, "0 episodes"},
		{"bad workload", Config{Settings: []Setting{bad}, Episodes: 1}, "median -1"},
	} {
		_, err := Run(context.Background(), c.cfg)
		assert.ErrorContains(t, err, c.want, c.name)
	}
}

func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Config{Settings: []Setting{mustSetting(t, "seed")}, Episodes: 100})
	assert.ErrorIs(t, err, context.Canceled, "cancelled run")
}

// TestViolationsNameTheSeedThatReplaysThem: a checker's findings come
// back with the episodes' seeds, and replaying a seed plays the same
// episode.
func TestViolationsNameTheSeedThatReplaysThem(t *testing.T) {
	s := mustSetting(t, "seed")
	var checked int
	check := func(s *Setting, initial []loop.Message, res *loop.Result) []Violation {
		assert.NotEmpty(t, res.Trace, "checker got no trace")
		assert.NotEmpty(t, initial, "checker got no starting history")
		if endedOnAPIError(res) {
			return []Violation{{Invariant: "no api errors", Event: len(res.Trace) - 1, Detail: "completed after an API error"}}
		}
		return nil
	}
	res, err := Run(context.Background(), Config{Settings: []Setting{s}, Episodes: 200, Seed: 7, Workers: 1, Check: func(s *Setting, i []loop.Message, r *loop.Result) []Violation {
		checked++
		return check(s, i, r)
	}})
	require.NoError(t, err)
	a := res.Settings[0].Aggregate
	assert.Equal(t, 200, checked, "episodes checked of 200")
	assert.True(t, res.Checked, "the result is not marked checked")
	require.Equal(t, a.CompletedAfterAPIError, a.Violations["no api errors"],
		"violations %v, completed after an API error %d", a.Violations, a.CompletedAfterAPIError)
	require.NotZero(t, a.ViolatingEpisodes, "violations %v, completed after an API error %d", a.Violations, a.CompletedAfterAPIError)
	assert.Len(t, a.Examples, min(a.ViolatingEpisodes, maxExamples), "examples of %d violating episodes", a.ViolatingEpisodes)
	for i, ep := range a.Examples {
		if i > 0 {
			assert.Greater(t, ep.Index, a.Examples[i-1].Index, "examples not in index order")
		}
		assert.Equal(t, EpisodeSeed(7, ep.Index), ep.Seed, "example %d: seed %#x is not episode %d's", i, ep.Seed, ep.Index)
		r, _, err := Replay(s, ep.Seed)
		require.NoError(t, err)
		assert.Equal(t, ep.Terminal, r.Terminal, "replaying %#x ends %s, the run ended %s", ep.Seed, r.Terminal, ep.Terminal)
	}
}

// TestRunInterruptedReturnsWhatFinished: cancelling the context returns
// the episodes that finished, whole, in a Result marked Partial.
func TestRunInterruptedReturnsWhatFinished(t *testing.T) {
	s, err := NewSetting("seed")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := Config{Settings: []Setting{s}, Episodes: 10_000, Seed: 3, Workers: 1, Prices: DefaultPrices,
		Progress: func(done, total int) {
			if done == 25 {
				cancel()
			}
		}}
	res, err := Run(ctx, cfg)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "sim: interrupted after 25 of 10000 episodes")
	require.NotNil(t, res)
	require.True(t, res.Partial)
	require.Equal(t, 25, res.Settings[0].Aggregate.Episodes)
}

// TestParsePricesRefusesNaN: NaN passes "x < 0"; it must not pass.
func TestParsePricesRefusesNaN(t *testing.T) {
	for _, v := range []string{"NaN", "-1", "Inf", "1e300", "100001"} {
		_, err := ParsePrices("input="+v, DefaultPrices)
		require.ErrorContains(t, err, "is not a number of dollars per million tokens from 0 to 100000", v)
	}
	p, err := ParsePrices("input=100000", DefaultPrices)
	require.NoError(t, err)
	require.Equal(t, 100000.0, p.Input)
}
