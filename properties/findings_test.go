package properties

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// findingCase is one known finding of a profile, with the shape its
// minimal counterexample must have.
type findingCase struct {
	profile string
	finding string
	// shape checks the minimal case rapid shrank to.
	shape func(t *testing.T, c Case)
}

var findingCases = []findingCase{
	{
		profile: "seed",
		finding: FindingUnboundedStopHookBlocks,
		shape: func(t *testing.T, c Case) {
			// one plain answer, forever, and a hook whose last verdict
			// (the one that repeats) blocks
			if assert.Len(t, c.Script, 1, "the minimal script:\n%s", FormatScript(c.Script)) {
				assert.True(t, plainAnswer(c.Script[0]), "the minimal script is one plain answer:\n%s", FormatScript(c.Script))
				assert.Equal(t, fakemodel.Forever, c.Script[0].Repeat, "the minimal script repeats forever")
			}
			if assert.NotEmpty(t, c.StopHooks, "the minimal stop hooks") {
				assert.NotEmpty(t, c.StopHooks[len(c.StopHooks)-1].Block, "the minimal stop hooks end blocking: %+v", c.StopHooks)
			}
		},
	},
	{
		profile: "seed",
		finding: FindingEscalationAfterRecovery,
		shape: func(t *testing.T, c Case) {
			// truncated (escalate), truncated (recover), truncated
			// (escalate again): three truncations, nothing else
			kinds := requestKinds(c.Script, 3)
			want := []fakemodel.Kind{fakemodel.Truncated, fakemodel.Truncated, fakemodel.Truncated}
			assert.LessOrEqual(t, len(c.Script), 3, "the minimal script:\n%s", FormatScript(c.Script))
			assert.Equal(t, want, kinds, "the minimal script is three truncations:\n%s", FormatScript(c.Script))
		},
	},
}

// TestKnownFindings shows, for each known finding, that rapid finds the
// violation in the profile's generated cases and shrinks it to a minimal
// script of the expected shape; that the minimal case, kept as a fixture
// under testdata/findings (rewritten with -update), still shows it; and
// that the policy option that fixes it makes the fixture pass every
// invariant.
func TestKnownFindings(t *testing.T) {
	for _, fc := range findingCases {
		t.Run(fc.finding, func(t *testing.T) {
			p, err := loop.Profile(fc.profile)
			require.NoError(t, err)
			f := findingNamed(t, fc.finding)
			require.True(t, f.Applies(p), "finding %s applies to profile %s", f.Name, fc.profile)
			shows := func(r Run) bool {
				for _, v := range Check(r) {
					if f.Explains(r, v) {
						return true
					}
				}
				return false
			}
			minimal, ran, found := findMinimal(t, CaseGen(p), shows)
			require.True(t, found, "rapid did not find %s in %d cases of profile %s (rapid seed %s)", f.Name, ran, fc.profile, rootSeed)
			t.Logf("rapid found %s within %d cases; minimal case:\n%s", f.Name, ran, minimal)
			fc.shape(t, minimal)

			path := filepath.Join("testdata", "findings", fc.profile+"_"+f.Name+".json")
			if *update {
				writeCase(t, path, minimal)
			}
			fixture := readCase(t, path)
			r, err := fixture.Execute()
			require.NoError(t, err)
			assert.True(t, shows(r), "fixture %s shows %s: %v", path, f.Name, Check(r))
			fixed := fixture
			fixed.Policy = f.Fix(fixture.Policy)
			r, err = fixed.Execute()
			require.NoError(t, err)
			assert.Empty(t, Check(r), "with the fix (%v) the fixture keeps every invariant", PolicyDiff(fixed.Policy))
		})
	}
}

// TestFixedSeedKeepsEveryInvariant runs the seed profile with the fix of
// every known finding over the same generated cases as
// TestInvariantsHold: no violation is excused.
func TestFixedSeedKeepsEveryInvariant(t *testing.T) {
	p := loop.Seed()
	for _, f := range KnownFindings() {
		p = f.Fix(p)
	}
	for _, f := range KnownFindings() {
		require.False(t, f.Applies(p), "finding %s still applies to the fixed seed policy", f.Name)
	}
	cov, seen := checkGenerated(t, CaseGen(p), 1)
	for _, f := range KnownFindings() {
		assert.Empty(t, seen[f.Invariant], "the fixed seed policy still breaks %s", f.Invariant)
	}
	guardCoverage(t, cov, p)
}

func findingNamed(t *testing.T, name string) Finding {
	t.Helper()
	for _, f := range KnownFindings() {
		if f.Name == name {
			return f
		}
	}
	require.FailNowf(t, "no such finding", "no known finding %q", name)
	return Finding{}
}

// plainAnswer reports whether s is a reply with text, no tool uses and no
// stop reason of its own.
func plainAnswer(s fakemodel.Step) bool {
	return (s.Kind == "" || s.Kind == fakemodel.Reply) && s.If == nil && len(s.ToolUses) == 0 && s.Stop == "" && s.Text != ""
}

// requestKinds lists the kinds of the steps answering the first n
// requests, expanding repeats.
func requestKinds(script []fakemodel.Step, n int) []fakemodel.Kind {
	var out []fakemodel.Kind
	for _, s := range script {
		times := max(s.Repeat, 1)
		if s.Repeat == fakemodel.Forever {
			times = n
		}
		for range times {
			if len(out) == n {
				return out
			}
			k := s.Kind
			if k == "" {
				k = fakemodel.Reply
			}
			if k == fakemodel.Reply && s.Stop == loop.StopMaxTokens {
				// a reply cut at the output cap is a truncation
				k = fakemodel.Truncated
			}
			out = append(out, k)
		}
	}
	return out
}

// writeCase writes c as indented JSON.
func writeCase(t *testing.T, path string, c Case) {
	t.Helper()
	b, err := json.MarshalIndent(c, "", "  ")
	require.NoError(t, err, "encode %s", path)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
}

// readCase reads a case written by writeCase; unknown fields are errors.
func readCase(t *testing.T, path string) Case {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err, "read fixture (run with -update to create it)")
	c, err := DecodeCase(b)
	require.NoError(t, err, path)
	return c
}
