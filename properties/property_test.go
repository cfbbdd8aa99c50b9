package properties

import (
	"slices"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// casesPerCheck is how many cases one rapid check runs: the default
// budget is rapid's 100 checks times this; -rapid.checks scales it. On a
// failure rapid shrinks the batch to the one failing case.
const casesPerCheck = 25

// TestInvariantsHold runs every invariant over generated cases of each
// profile as it is. Violations a known finding explains are tallied, not
// failed (findings_test.go shows them); the coverage guard then requires
// every transition and terminal the profile can reach.
func TestInvariantsHold(t *testing.T) {
	for _, name := range loop.Profiles() {
		t.Run(name, func(t *testing.T) {
			p, err := loop.Profile(name)
			require.NoError(t, err)
			cov, seen := checkGenerated(t, CaseGen(p), 1)
			guardCoverage(t, cov, p)
			logVerdicts(t, name, seen)
		})
	}
}

// TestInvariantsHoldSwarm is TestInvariantsHold with policies drawn
// swarm-style from a profile: every switch on or off, every number in its
// range. Between them the swarm policies reach every transition and
// terminal.
func TestInvariantsHoldSwarm(t *testing.T) {
	var profiles []loop.Policy
	for _, name := range loop.Profiles() {
		p, err := loop.Profile(name)
		require.NoError(t, err)
		profiles = append(profiles, p)
	}
	g := rapid.Custom(func(t *rapid.T) Case {
		return SwarmCaseGen(rapid.SampledFrom(profiles).Draw(t, "profile")).Draw(t, "case")
	})
	cov, seen := checkGenerated(t, g, 2)
	guardCoverage(t, cov, everything())
	logVerdicts(t, "swarm", seen)
}

// checkGenerated runs rapid over batches of cases from g (batches times
// casesPerCheck a check) and fails on any
// violation no known finding explains. It returns the coverage and, by
// invariant, which findings explained the violations seen.
func checkGenerated(t *testing.T, g *rapid.Generator[Case], batches int) (Coverage, map[string]map[string]int) {
	t.Helper()
	var cov Coverage
	seen := map[string]map[string]int{}
	note := func(inv, why string) {
		if seen[inv] == nil {
			seen[inv] = map[string]int{}
		}
		seen[inv][why]++
	}
	rapid.Check(t, func(rt *rapid.T) {
		for i := range batches * casesPerCheck {
			c := g.Draw(rt, "case "+itoa(i))
			r, err := c.Execute()
			if err != nil {
				rt.Fatalf("%v\n%s", err, c)
			}
			cov.Add(r.Result)
			for _, v := range Check(r) {
				why := explain(r, v)
				if why == "" {
					rt.Fatalf("%v\n%s", v, c)
				}
				note(v.Invariant, why)
			}
		}
	})
	return cov, seen
}

// explain names the known finding that explains v, or returns "".
func explain(r Run, v Violation) string {
	for _, f := range KnownFindings() {
		if f.Explains(r, v) {
			return "finding " + f.Name
		}
	}
	return ""
}

// guardCoverage fails the test if a transition or terminal policy p can
// reach was never reached; -v prints the counts. It needs the default
// budget: under -short (a fifth of it) it only reports.
func guardCoverage(t *testing.T, cov Coverage, p loop.Policy) {
	t.Helper()
	t.Logf("coverage (rapid seed %s):\n%s", rootSeed, cov)
	if testing.Short() {
		t.Logf("-short: coverage not required; missing %v", cov.Missing(p))
		return
	}
	missing := cov.Missing(p)
	assert.Empty(t, missing, "the generated cases never reached %v (rapid seed %s): a generator that cannot produce them would pass vacuously", missing, rootSeed)
}

// logVerdicts prints each invariant's verdict over the cases run.
func logVerdicts(t *testing.T, profile string, seen map[string]map[string]int) {
	t.Helper()
	for _, name := range InvariantNames() {
		verdict := "holds"
		if len(seen[name]) > 0 {
			verdict = "broken:"
			for _, why := range sortedKeys(seen[name]) {
				verdict += " " + why + " in " + itoa(seen[name][why]) + " runs;"
			}
		}
		t.Logf("%s: %-22s %s", profile, name, verdict)
	}
}

// everything is a policy under which [Reachable] lists every transition
// and terminal except blocking_limit and rapid_refill_breaker, which need
// collapse off; swarm policies reach them all between them.
func everything() loop.Policy {
	p := loop.ClaudeCode()
	p.Escalation, p.TokenBudget, p.MaxOutputRecoveries = true, true, 3
	p.ContextCollapse = false
	return p
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
