package properties_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopsim/loopsim/properties"
	"github.com/loopsim/loopsim/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// findingScenarios are the minimal counterexamples of the known findings
// (testdata/findings/*.json, found and shrunk by TestKnownFindings) as
// scenario files, and the same with the fix.
var findingScenarios = []struct {
	fixture, finding, source string
}{
	{"seed_unbounded_stop_hook_blocks", properties.FindingUnboundedStopHookBlocks, "SPEC §5 (termination); found and shrunk by properties.TestKnownFindings"},
	{"seed_escalation_after_recovery", properties.FindingEscalationAfterRecovery, "SPEC §5 (escalate once); found and shrunk by properties.TestKnownFindings"},
}

// TestFindingScenarios runs the scenario files of the minimal
// counterexamples through the scenarios package: each must show its
// finding, and its fixed twin must keep every invariant. -update rewrites
// them from the fixtures.
func TestFindingScenarios(t *testing.T) {
	update := flag.Lookup("update").Value.String() == "true"
	for _, fs := range findingScenarios {
		t.Run(fs.fixture, func(t *testing.T) {
			finding := findingNamed(t, fs.finding)
			raw, err := os.ReadFile(filepath.Join("testdata", "findings", fs.fixture+".json"))
			require.NoError(t, err)
			c, err := properties.DecodeCase(raw)
			require.NoError(t, err)
			fixed := c
			fixed.Policy = finding.Fix(c.Policy)
			for _, v := range []struct {
				name, description string
				c                 properties.Case
			}{
				{scenarioName(fs.fixture), "Minimal counterexample of the known finding " + finding.Name + ": " + finding.Summary + ".", c},
				{scenarioName(fs.fixture) + "-fixed", "The minimal counterexample of " + finding.Name + " with the policy option that fixes it: every invariant holds.", fixed},
			} {
				path := filepath.Join("testdata", "scenarios", v.name+".yaml")
				if update {
					text, err := properties.ScenarioFile(v.name, v.description, fs.source, v.c)
					require.NoError(t, err)
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
				}
				s, err := scenarios.LoadFile(path)
				require.NoError(t, err)
				out, err := scenarios.Run(context.Background(), s)
				require.NoError(t, err)
				assert.True(t, out.Passed(), "%s departs from its expectation (-want +got):\n%s", path, out.Diff())
			}
		})
	}
}

func findingNamed(t *testing.T, name string) properties.Finding {
	t.Helper()
	for _, f := range properties.KnownFindings() {
		if f.Name == name {
			return f
		}
	}
	require.FailNowf(t, "no such finding", "no finding %q", name)
	return properties.Finding{}
}

// scenarioName spells a fixture's name as scenario names are spelled.
func scenarioName(fixture string) string { return strings.ReplaceAll(fixture, "_", "-") }
