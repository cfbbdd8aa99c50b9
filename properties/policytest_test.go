package properties

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// capturingTB is a rapid.TB that keeps everything a check reports (logs
// too), so a test can read the report [Test] makes instead of failing
// itself.
type capturingTB struct {
	name   string
	out    strings.Builder
	failed bool
}

func (r *capturingTB) Helper()                      {}
func (r *capturingTB) Name() string                 { return r.name }
func (r *capturingTB) Logf(format string, a ...any) { fmt.Fprintf(&r.out, format+"\n", a...) }
func (r *capturingTB) Log(a ...any)                 { fmt.Fprintln(&r.out, a...) }
func (r *capturingTB) Skipf(format string, a ...any) {
	r.Logf(format, a...)
}
func (r *capturingTB) Skip(a ...any)                  { r.Log(a...) }
func (r *capturingTB) SkipNow()                       {}
func (r *capturingTB) Errorf(format string, a ...any) { r.failed = true; r.Logf(format, a...) }
func (r *capturingTB) Error(a ...any)                 { r.failed = true; r.Log(a...) }
func (r *capturingTB) Fatalf(format string, a ...any) { r.Errorf(format, a...) }
func (r *capturingTB) Fatal(a ...any)                 { r.Error(a...) }
func (r *capturingTB) FailNow()                       { r.failed = true }
func (r *capturingTB) Fail()                          { r.failed = true }
func (r *capturingTB) Failed() bool                   { return r.failed }

// withoutFailFiles runs f with rapid's fail files off (a recorded
// failure is expected, not one to replay) and the given root seed.
func withoutFailFiles(t *testing.T, seed uint64, f func()) {
	t.Helper()
	defer setFlag(t, "rapid.nofailfile", "true")()
	defer setFlag(t, "rapid.seed", strconv.FormatUint(seed, 10))()
	f()
}

// atMostBlocks is a user's bound on consecutive stop-hook blocks.
func atMostBlocks(n int) Property {
	return Property{
		Name: fmt.Sprintf("at most %d stop-hook blocks in a row", n),
		Check: func(r Run) error {
			for i, e := range r.Result.Trace {
				if x, ok := e.(loop.StopHook); ok && x.Outcome == loop.HookBlock && x.BlocksInRow > n {
					return Violation{Invariant: "user bound", Event: i, Detail: fmt.Sprintf("%d blocks in a row", x.BlocksInRow)}
				}
			}
			return nil
		},
	}
}

var failedAfter = regexp.MustCompile(`\[rapid\] failed after (\d+) tests`)

// TestTestFindsAUsersBoundBelowTheCap: the user bounds consecutive
// stop-hook blocks at 3; claude-code caps them at 8. Test finds it within
// rapid's default 100 checks, for every root seed tried, and reports it
// readably.
func TestTestFindsAUsersBoundBelowTheCap(t *testing.T) {
	var needed []int
	var last string
	for seed := uint64(1); seed <= 3; seed++ {
		tb := &capturingTB{name: "TestUserPolicy"}
		withoutFailFiles(t, seed, func() {
			Test(tb, Options{Policy: loop.ClaudeCode(), Properties: []Property{atMostBlocks(3)}})
		})
		require.True(t, tb.failed, "seed %d: the bound of 3 was not found:\n%s", seed, tb.out.String())
		m := failedAfter.FindStringSubmatch(tb.out.String())
		require.NotNil(t, m, "seed %d: no rapid verdict in:\n%s", seed, tb.out.String())
		n, _ := strconv.Atoi(m[1])
		needed = append(needed, n+1)
		last = tb.out.String()
	}
	t.Logf("checks needed to find the bound, seeds 1-3: %v", needed)
	for _, n := range needed {
		assert.LessOrEqual(t, n, 100, "checks needed")
	}
	// the report: what broke, the shrunk case, the trace around it, the replay
	assert.Contains(t, last, "properties.Test: policy \"claude-code\" broke 1 check(s)")
	assert.Contains(t, last, "at most 3 stop-hook blocks in a row: user bound at event")
	assert.Contains(t, last, "4 blocks in a row", "the shrunk case stops at the first block past the bound")
	assert.Contains(t, last, "policy claude-code\nprimary primary")
	assert.Regexp(t, `(?m)^> +\d+  stop_hook +block`, last, "the violating event is marked in the trace")
	assert.Contains(t, last, "replay: go test -run '^TestUserPolicy$'")
	assert.NotContains(t, last, "&properties.Case{", "no %#v dump")
}

func TestTestPassesWhatThePolicyKeeps(t *testing.T) {
	tb := &capturingTB{name: "TestUserPolicy"}
	withoutFailFiles(t, 1, func() {
		Test(tb, Options{Policy: loop.ClaudeCode(), Properties: []Property{atMostBlocks(8)}})
	})
	assert.False(t, tb.failed, tb.out.String())
	assert.Contains(t, tb.out.String(), "[rapid] OK, passed 100 tests")
}

func TestTestFindsTheSeedsKnownFinding(t *testing.T) {
	// the seed has no block cap (a hook that always blocks never ends)
	// and escalates again after each recovery
	tb := &capturingTB{name: "TestSeed"}
	withoutFailFiles(t, 1, func() {
		Test(tb, Options{Policy: loop.Seed()})
	})
	require.True(t, tb.failed)
	assert.Regexp(t, `broke 1 check\(s\):\n  - (termination|escalate_once)`, tb.out.String(), "one of the seed's known findings")
	// skipped, and with the fix, it holds
	tb = &capturingTB{name: "TestSeedFixed"}
	fixed, err := loop.Seed().With("stop_hook_block_cap", "8")
	require.NoError(t, err)
	fixed, err = fixed.With("escalate_once_per_stretch", "true")
	require.NoError(t, err)
	withoutFailFiles(t, 1, func() {
		Test(tb, Options{Policy: fixed})
	})
	assert.False(t, tb.failed, tb.out.String())
}

func TestTestWithOwnScriptsAndWorkload(t *testing.T) {
	scripts := rapid.Custom(func(t *rapid.T) []fakemodel.Step {
		return []fakemodel.Step{{Kind: fakemodel.ServerError, Repeat: rapid.IntRange(0, 12).Draw(t, "server errors")}, {Text: "done"}}
	})
	noAPIErrorEnd := Property{Name: "no api_error", Check: func(r Run) error {
		if r.Result.Terminal == loop.APIError {
			return fmt.Errorf("ended api_error after %d requests", r.Result.Stats.Requests)
		}
		return nil
	}}
	tb := &capturingTB{name: "TestOwnScripts"}
	withoutFailFiles(t, 1, func() {
		Test(tb, Options{Policy: loop.ClaudeCode(), Scripts: scripts, Properties: []Property{noAPIErrorEnd}})
	})
	require.True(t, tb.failed, "11 server errors exhaust claude-code's 10 retries (529s end sooner: the 3rd in a row without a fallback)")
	assert.Contains(t, tb.out.String(), "no api_error: ended api_error after 11 requests")

	w := fakemodel.DefaultWorkload()
	tb = &capturingTB{name: "TestWorkload"}
	withoutFailFiles(t, 1, func() {
		Test(tb, Options{Policy: loop.ClaudeCode(), Workload: &w, Properties: []Property{atMostBlocks(8)}})
	})
	assert.False(t, tb.failed, tb.out.String())
}

func TestTestRefusesBadOptions(t *testing.T) {
	for name, tc := range map[string]struct {
		o    Options
		want string
	}{
		"invalid policy":  {Options{Policy: loop.Policy{}}, "policy field"},
		"unknown skip":    {Options{Policy: loop.Seed(), Skip: []string{"nope"}}, `no invariant named "nope"`},
		"nameless check":  {Options{Policy: loop.Seed(), Properties: []Property{{Check: func(Run) error { return nil }}}}, "Properties[0] needs a Name"},
		"two run sources": {Options{Policy: loop.Seed(), Scripts: rapid.Just([]fakemodel.Step{{Text: "x"}}), Workload: &fakemodel.Workload{}}, "exclude each other"},
	} {
		t.Run(name, func(t *testing.T) {
			tb := &capturingTB{name: name}
			Test(tb, tc.o)
			assert.True(t, tb.failed)
			assert.Contains(t, tb.out.String(), tc.want)
		})
	}
}
