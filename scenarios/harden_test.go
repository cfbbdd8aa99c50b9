package scenarios

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSeedTakesEveryUint64: the seed field is a uint64, all of it.
func TestSeedTakesEveryUint64(t *testing.T) {
	s, err := Parse("seed.yaml", []byte(`name: x
description: d
profile: seed
seed: 18446744073709551615
conversation: [{role: user, text: hi}]
script: [{text: done}]
expect: {terminal: completed, transitions: []}
`))
	require.NoError(t, err)
	assert.Equal(t, uint64(math.MaxUint64), s.Seed)
}

// TestBrokenCorpusCoversEveryClass: the corpus holds files of every
// class of hostile input the loader must refuse with a positioned error.
func TestBrokenCorpusCoversEveryClass(t *testing.T) {
	for _, class := range []string{"bound-", "history-", "binary-", "alias-", "nonsense-", "seed-", "negative-", "wrong-type-"} {
		files, err := filepath.Glob("testdata/broken/" + class + "*.yaml")
		require.NoError(t, err)
		assert.GreaterOrEqual(t, len(files), 4, "class %s", class)
	}
}

// TestLongestScenarioFinishesInTime: a scenario at the documented
// maximum iteration_limit, a stop hook blocking on every one of them,
// runs well within the watchdog now that the fakes record each call in
// constant time.
func TestLongestScenarioFinishesInTime(t *testing.T) {
	s := scenario(t, `name: longest
description: the seed under a stop hook that always blocks, for the most iterations a scenario may run
profile: seed
iteration_limit: 10000
conversation: [{role: user, text: fix the test}]
script: [{text: done, repeat: forever}]
stop_hooks: [{block: tests still fail}]
expect: {halted: true, transitions: [stop_hook_blocking * 10000], violated: [termination]}
`)
	start := time.Now()
	out, err := Run(context.Background(), s)
	require.NoError(t, err)
	assert.True(t, out.Passed(), out.Diff())
	assert.Less(t, time.Since(start), Watchdog/2)
}

// TestHugeAfterIsRefused: the file of the issue that died at 3.4 GB is
// refused by the loader, naming the bound.
func TestHugeAfterIsRefused(t *testing.T) {
	_, err := Parse("after.yaml", []byte(`name: x
description: d
profile: seed
conversation: [{role: user, text: hi}]
script: [{kind: stream_error, after: 300000000}, {text: done}]
expect: {terminal: completed, transitions: []}
`))
	var list ErrorList
	require.True(t, errors.As(err, &list))
	require.Len(t, list, 1)
	assert.Equal(t, "after.yaml:5:38: script[0].after: 300000000 is above 10000, the most content blocks a stream may yield before it fails (fakemodel.MaxAfter)", list[0].Error())
}
