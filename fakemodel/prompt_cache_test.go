package fakemodel

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// TestPromptCacheUsage: the workload's Episode and the replayed Session
// report a request's input as read from the prompt cache up to what the
// previous request sent, when the two start with the same message, and
// written to it for the rest; a request that starts elsewhere (after a
// compaction) reads nothing.
func TestPromptCacheUsage(t *testing.T) {
	fakes := map[string]func() loop.Model{
		"episode": func() loop.Model { return calm(3).Episode(Seeds{Workload: 1, Faults: 2}, 200_000, func() {}) },
		"session": func() loop.Model {
			return &Session{Start: 1_000, Steps: replaySteps(), Summary: 500, Window: 200_000}
		},
	}
	for name, fake := range fakes {
		m := fake()
		for i, c := range []struct {
			ids               []string
			input             int
			wantRead, wantNew int
		}{
			{[]string{"a"}, 1_000, 0, 1_000},
			{[]string{"a", "b"}, 1_500, 1_000, 500},
			{[]string{"c"}, 400, 0, 400},
			{[]string{"c", "d"}, 300, 300, 0},
			{[]string{"e", "d"}, 900, 0, 900},
			{nil, 50, 0, 50},
			{nil, 60, 50, 10},
		} {
			resp, err := m.Stream(context.Background(), loop.Request{Purpose: loop.PurposeCompact, MaxTokens: 64_000,
				InputTokens: c.input, Messages: withIDs(c.ids...)}, func(loop.Block) {})
			require.NoError(t, err, "%s: request %d", name, i+1)
			assert.Equal(t, c.wantRead, resp.Usage.CacheReadInputTokens, "%s: request %d %v: read from the cache", name, i+1, c.ids)
			assert.Equal(t, c.wantNew, resp.Usage.CacheCreationInputTokens, "%s: request %d %v: written to the cache", name, i+1, c.ids)
		}
	}
}
