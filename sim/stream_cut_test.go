package sim

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// TestStreamCutsAfterContent: a workload whose stream errors come after
// content takes claude-code to stream_error_recovery, and the metric
// stream_cuts_kept counts those transitions, episode by episode (checked
// against each episode's replayed trace). With stream_error_recovery off
// the same episodes retry the cut streams non-streaming instead, and
// the metric stays 0.
func TestStreamCutsAfterContent(t *testing.T) {
	const episodes = 24
	faults := []string{"workload.faults.stream_error=0.05", "workload.faults.stream_error_after_content=1"}
	on := mustSetting(t, "claude-code", faults...)
	off := mustSetting(t, "claude-code", append(faults, "stream_error_recovery=false")...)

	var mu sync.Mutex
	eps := map[int][]Episode{}
	r, err := Run(context.Background(), Config{Settings: []Setting{on, off}, Episodes: episodes, Seed: 11, Prices: DefaultPrices,
		OnEpisode: func(s int, ep *Episode) {
			mu.Lock()
			defer mu.Unlock()
			eps[s] = append(eps[s], *ep)
		}})
	require.NoError(t, err)
	require.Len(t, eps[0], episodes)
	require.Len(t, eps[1], episodes)

	// count is how many events of the replayed episode match.
	count := func(s Setting, seed uint64, match func(loop.Event) bool) int64 {
		res, _, err := Replay(s, seed)
		require.NoError(t, err)
		n := int64(0)
		for _, e := range res.Trace {
			if match(e) {
				n++
			}
		}
		return n
	}
	recovery := func(e loop.Event) bool {
		x, ok := e.(loop.TransitionEvent)
		return ok && x.Transition == loop.StreamErrorRecovery
	}
	nonStreaming := func(e loop.Event) bool {
		x, ok := e.(loop.Retry)
		return ok && x.Reason == loop.KindStream && x.NonStreaming
	}

	var kept, retried int64
	for _, ep := range eps[0] {
		want := count(on, ep.Seed, recovery)
		assert.Equal(t, want, ep.Value(StreamCutsKept), "episode %d: stream_cuts_kept against the trace", ep.Index)
		kept += ep.Value(StreamCutsKept)
	}
	for _, ep := range eps[1] {
		assert.Zero(t, ep.Value(StreamCutsKept), "episode %d: recovery off", ep.Index)
		retried += count(off, ep.Seed, nonStreaming)
	}
	t.Logf("kept %d retried %d", kept, retried)
	assert.Positive(t, kept, "claude-code recovered stream cuts")
	assert.Positive(t, retried, "with recovery off the cut streams were retried non-streaming")
	assert.Equal(t, kept, r.Settings[0].Aggregate.Sum[StreamCutsKept], "the aggregate sums the episodes")
	assert.Zero(t, r.Settings[1].Aggregate.Sum[StreamCutsKept])

	// before content, as by default, no cut is kept
	before := mustSetting(t, "claude-code", "workload.faults.stream_error=0.05")
	r, err = Run(context.Background(), Config{Settings: []Setting{before}, Episodes: episodes, Seed: 11, Prices: DefaultPrices})
	require.NoError(t, err)
	assert.Zero(t, r.Settings[0].Aggregate.Sum[StreamCutsKept], "stream errors before content")
	assert.Positive(t, r.Settings[0].Aggregate.Sum[Retries], "they are retried")
}
