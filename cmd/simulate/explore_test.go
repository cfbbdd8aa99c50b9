package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/properties"
	"github.com/loopsim/loopsim/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// explore prints a line per script length to stderr and the table to
// stdout, and exits 0 when nothing unexplained broke.
func TestExploreSmallDepth(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"explore", "-profile", "seed", "-depth", "2", "-env", "plain"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stderr.String(), "explore seed/plain: length 2:")
	assert.Contains(t, stdout.String(), "length  scripts run  ran out  distinct states  merged  seconds")
	assert.Contains(t, stdout.String(), "stand for all 463 scripts of at most 2 steps", "1 + (20+2) + (20*20+20*2): the space of depth 2")
}

// Bad flags exit 2 with a message naming the flag.
func TestExploreRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-depth", "9"}, {"-depth", "9", "-deep"}, {"-depth", "7"}, {"-depth", "-1"}, {"-profile", "nope"}, {"-env", "cold"}, {"-workers", "0"}, {"extra"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, exitBadInput, dispatch(append([]string{"explore"}, args...), &stdout, &stderr), "%v", args)
		assert.NotEmpty(t, stderr.String(), "%v", args)
	}
}

// A violation is shrunk and printed as a scenario file that loads, and
// explore exits 3. The case runs claude-code allowing four output-token
// recoveries, checked against a claim of two.
func TestExploreReportsAShrunkScenario(t *testing.T) {
	claimed := loop.ClaudeCode()
	claimed.MaxOutputRecoveries = 2
	env := properties.Environments(claimed)[0]
	letters, _ := properties.Alphabet(claimed, env.Case.Primary)
	c := env.Case
	c.Policy.MaxOutputRecoveries = 4
	check := func(r properties.Run) []properties.Violation {
		r.Policy = claimed
		_, un := judge(r)
		return un
	}
	truncated := fakemodel.Step{Kind: fakemodel.Truncated, Text: "long"}
	c.Script = []fakemodel.Step{{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}}, truncated, truncated, truncated, truncated}
	r, err := c.Execute()
	require.NoError(t, err)
	vs := check(r)
	require.NotEmpty(t, vs, "the case breaks an invariant")
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 3, reportViolation("claude-code/plain", c, vs[0], letters, check, &stdout, &stderr))
	s, err := scenarios.Parse("explore.yaml", stdout.Bytes())
	require.NoError(t, err, stdout.String())
	assert.NotNil(t, s)
	assert.NotContains(t, stdout.String(), "tool_uses", "the tool step is not needed and is shrunk away")
	assert.Equal(t, 3, strings.Count(stdout.String(), `{"kind":"truncated","text":"long"}`), "three truncations reach the third recovery")
}

// brokenRecoveries is a deliberately broken loop: claude-code's plain
// environment allowing four output-token recoveries, and a judge that
// holds its runs to a claim of two.
func brokenRecoveries() (properties.Case, func(properties.Run) (all, unexplained []properties.Violation)) {
	claimed := loop.ClaudeCode()
	claimed.MaxOutputRecoveries = 2
	base := properties.Environments(claimed)[0].Case
	base.Policy.MaxOutputRecoveries = 4
	return base, func(r properties.Run) (all, unexplained []properties.Violation) {
		r.Policy = claimed
		return judge(r)
	}
}

// The model checker finds a deliberately broken loop: claude-code
// allowing four output-token recoveries, judged against a claim of two,
// explored to depth 3 with the whole alphabet. Breadth first, the first
// violation is the one-letter script of a truncation that repeats
// forever; it is printed as a scenario that loads; exit 3.
func TestExploreFindsAndShrinksABrokenLoop(t *testing.T) {
	base, brokenJudge := brokenRecoveries()
	var stdout, stderr bytes.Buffer
	code := exploreEnvironment("claude-code/plain", base, exploreSettings{depth: 3, workers: 2}, brokenJudge, &stdout, &stderr)
	require.Equal(t, 3, code, stderr.String())
	assert.Contains(t, stderr.String(), "three_recoveries broken")
	_, err := scenarios.Parse("explore.yaml", stdout.Bytes())
	require.NoError(t, err, stdout.String())
	assert.Equal(t, 1, strings.Count(stdout.String(), `"kind":`), "one step:\n%s", stdout.String())
	assert.Contains(t, stdout.String(), `{"kind":"truncated","text":"long","repeat":"forever"}`)
}

// -cpuprofile writes a CPU profile of the exploration; a path that
// cannot be created is refused before exploring.
func TestExploreWritesACPUProfile(t *testing.T) {
	path := t.TempDir() + "/explore.prof"
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"explore", "-profile", "seed", "-depth", "1", "-env", "plain", "-cpuprofile", path}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Positive(t, info.Size(), "the profile is written")
	assert.NotContains(t, stderr.String(), "-cpuprofile", "the profile is closed without an error")

	stdout.Reset()
	stderr.Reset()
	code = dispatch([]string{"explore", "-profile", "seed", "-depth", "1", "-cpuprofile", t.TempDir() + "/no/such/dir/p.prof"}, &stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "-cpuprofile")
	assert.Empty(t, stdout.String(), "nothing explored")
}

// -plain explores without merging: the same space of scripts, more of
// them run, a table without states.
func TestExplorePlainRunsMoreOfTheSameSpace(t *testing.T) {
	var merged, plain, stderr bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"explore", "-profile", "seed", "-depth", "3", "-env", "plain"}, &merged, &stderr), stderr.String())
	require.Equal(t, 0, dispatch([]string{"explore", "-profile", "seed", "-depth", "3", "-env", "plain", "-plain"}, &plain, &stderr), stderr.String())
	assert.Contains(t, merged.String(), "seed/plain: 573 scripts run stand for all 9263 scripts of at most 3 steps")
	assert.Contains(t, plain.String(), "seed/plain (plain, no merging): 1057 scripts run stand for all 9263 scripts of at most 3 steps")
	assert.Contains(t, plain.String(), "length  scripts run  ran out\n     0            1        1\n     1           22        7\n     2          154       40\n     3          880      235\n   all         1057\n")
	assert.Contains(t, plain.String(), "explained by a known finding: escalate_once in 151 runs")
	assert.NotContains(t, plain.String(), "distinct states")
}

// The plain explorer stops at a violation and prints it shrunk, as the
// model checker does.
func TestExplorePlainFindsABrokenLoop(t *testing.T) {
	base, brokenJudge := brokenRecoveries()
	var stdout, stderr bytes.Buffer
	require.Equal(t, 3, explorePlain("claude-code/plain", base, exploreSettings{depth: 3, workers: 1}, brokenJudge, &stdout, &stderr), stderr.String())
	assert.Contains(t, stderr.String(), "three_recoveries broken")
	assert.Contains(t, stderr.String(), "by the script 1. reply(tools=Read) 2. reply(tools=Read) 3. truncated(text) forever\n",
		"depth first, it stops at the first violating script")
	_, err := scenarios.Parse("explore.yaml", stdout.Bytes())
	require.NoError(t, err, stdout.String())

	// a judge that finds one violation in a run stops it too: claimed
	// three recoveries, the fourth (of truncated forever) breaks it
	claimedThree := loop.ClaudeCode()
	claimedThree.MaxOutputRecoveries = 3
	oneJudge := func(r properties.Run) (all, unexplained []properties.Violation) {
		r.Policy = claimedThree
		return judge(r)
	}
	stdout.Reset()
	stderr.Reset()
	assert.Equal(t, 3, explorePlain("claude-code/plain", base, exploreSettings{depth: 1, workers: 1}, oneJudge, &stdout, &stderr), stderr.String())
	assert.Contains(t, stderr.String(), "max_output_tokens_recovery #4")

	stdout.Reset()
	stderr.Reset()
	bad := base
	bad.Policy.MaxTurns = -1
	assert.Equal(t, 1, explorePlain("claude-code/plain", bad, exploreSettings{depth: 1, workers: 1}, judge, &stdout, &stderr), "a case the loop refuses")
	assert.Contains(t, stderr.String(), "explore claude-code/plain:")
}

// The last length runs without the state probe and shows "-" for its
// states, unless -count-last.
func TestExploreCountsTheLastLengthOnRequest(t *testing.T) {
	var unprobed, counted, stderr bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"explore", "-profile", "seed", "-depth", "3", "-env", "plain"}, &unprobed, &stderr), stderr.String())
	assert.Contains(t, unprobed.String(), "     2          110       32               20      12")
	assert.Contains(t, unprobed.String(), "     3          440      131                -       -")
	assert.Contains(t, unprobed.String(), "   all          573                        26\n", "the states explored")
	assert.Contains(t, unprobed.String(), "explained by a known finding: escalate_once in 81 runs")
	assert.Contains(t, stderr.String(), "length 3: 440 scripts run, 131 ran out, states not counted")
	stderr.Reset()
	require.Equal(t, 0, dispatch([]string{"explore", "-profile", "seed", "-depth", "3", "-env", "plain", "-count-last"}, &counted, &stderr), stderr.String())
	assert.Contains(t, counted.String(), "     3          440      131               73      58")
	assert.Contains(t, counted.String(), "   all          573                        99\n")
	assert.Contains(t, stderr.String(), "length 3: 440 scripts run, 131 ran out, 73 new states, 58 merged")
}

// Without -env, explore goes through every environment of the profile.
func TestExploreEveryEnvironment(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"explore", "-profile", "seed", "-depth", "1"}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "seed/plain: ")
	assert.Contains(t, stdout.String(), "seed/hostile: ")
	stdout.Reset()
	require.Equal(t, 0, dispatch([]string{"explore", "-profile", "seed", "-depth", "1", "-plain"}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "seed/plain (plain, no merging): ")
	assert.Contains(t, stdout.String(), "seed/hostile (plain, no merging): ")
}
