package agents

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/properties/wirecheck"
	"github.com/loopsim/loopsim/scenarios"
)

// incidentDir holds the incidents' scenarios; incidentFixtures their runs
// against the pinned agents.
const (
	incidentDir      = "../scenarios/incidents"
	incidentFixtures = "testdata/incidents"
)

// rules are the rules [Judge] marks: the wire invariants and the
// matrix-only rules.
var rules = append(wirecheck.InvariantNames(), RuleRetriesWithoutBound, RuleHangsAfterFailure)

func loadFixture(t *testing.T, in Incident) IncidentRun {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(incidentFixtures, in.Scenario+".json"))
	require.NoError(t, err, "LOOPSIM_AGENTS=1 go test ./agents -run TestIncidentsForReal -update records it")
	var run IncidentRun
	require.NoError(t, json.Unmarshal(data, &run))
	return run
}

// TestIncidentsTable: every incident names a scenario of
// scenarios/incidents/ that loads, a preset, and rules of [Judge]; every
// scenario there is an incident's.
func TestIncidentsTable(t *testing.T) {
	list, err := scenarios.Load(incidentDir)
	require.NoError(t, err)
	var names []string
	for _, s := range list {
		names = append(names, s.Name)
	}
	var table []string
	for _, in := range Incidents() {
		table = append(table, in.Scenario)
		_, err := Lookup(in.Agent)
		assert.NoError(t, err, in.Scenario)
		assert.True(t, strings.HasPrefix(in.Scenario, in.Agent+"-"), "%s is named after its agent %s", in.Scenario, in.Agent)
		require.NotEmpty(t, in.Rules, in.Scenario)
		for _, r := range in.Rules {
			assert.Contains(t, rules, r, in.Scenario)
		}
		assert.Contains(t, in.Issue, "#", in.Scenario)
	}
	assert.ElementsMatch(t, names, table, "each scenario of %s is an incident of agents.Incidents", incidentDir)
}

// TestIncidentVerdict: a run reproduces an incident when it breaks one of
// the incident's rules (other rules do not count) or, for an incident
// with a wire expectation, misses it.
func TestIncidentVerdict(t *testing.T) {
	in := Incident{Rules: []string{InvariantBoundedCompaction}}
	assert.Equal(t, VerdictReproduced, in.Verdict([]string{InvariantBoundedCompaction + ": request 9: 4 compaction requests without a main reply between them (at most 3)"}, true))
	assert.Equal(t, VerdictNotReproduced, in.Verdict([]string{RuleRetriesWithoutBound + ": 30 failed requests"}, true))
	assert.Equal(t, VerdictNotReproduced, in.Verdict(nil, false), "no wire expectation")
	in.Wire = true
	assert.Equal(t, VerdictReproduced, in.Verdict(nil, false))
	assert.Equal(t, VerdictNotReproduced, in.Verdict(nil, true))
	assert.Equal(t, RuleHangsAfterFailure, RuleOf(RuleHangsAfterFailure+": no request for the last 60 s before the 120 s limit"))
}

// TestIncidentFixtureFormat: a fixture is written one request a line and
// reads back equal.
func TestIncidentFixtureFormat(t *testing.T) {
	run := IncidentRun{Scenario: "s", Requests: []IncidentRequest{{Label: "M:429", RetryAfterMS: 1000}, {Label: "C:text", Messages: 3}},
		Broken: []string{}, Verdict: VerdictNotReproduced}
	data, err := run.MarshalFixture()
	require.NoError(t, err)
	assert.Contains(t, string(data), "\n    {\"label\":\"M:429\",")
	var back IncidentRun
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, run, back)
	data, err = IncidentRun{Scenario: "none"}.MarshalFixture()
	require.NoError(t, err)
	assert.Contains(t, string(data), `"requests": []`)
}

// TestIncidentFixtures checks each recorded run without the agent: it was
// the preset's pinned version, and judging what it recorded again gives
// the rules it recorded and the verdict it states. With -update it
// writes the re-judged rules and verdict into the fixture instead (after
// a rule changed; the recorded requests stay as they are).
func TestIncidentFixtures(t *testing.T) {
	for _, in := range Incidents() {
		t.Run(in.Scenario, func(t *testing.T) {
			run := loadFixture(t, in)
			p, err := Lookup(in.Agent)
			require.NoError(t, err)
			assert.Equal(t, in.Scenario, run.Scenario)
			assert.Equal(t, in.Issue, run.Issue)
			assert.Equal(t, p.Name, run.Agent)
			assert.Equal(t, p.Version, run.Version, "recorded against the pinned version")
			require.NotEmpty(t, run.Requests, "the agent called the server")
			s, err := scenarios.LoadFile(filepath.Join(incidentDir, in.Scenario+".yaml"))
			require.NoError(t, err)
			broken, verdict := run.Rejudge(in, s)
			if *update {
				run.Broken, run.Verdict = broken, verdict
				data, err := run.MarshalFixture()
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(incidentFixtures, in.Scenario+".json"), data, 0o644))
				return
			}
			assert.Equal(t, run.Broken, broken, "the rules the recorded run breaks")
			assert.Equal(t, run.Verdict, verdict)
		})
	}
}

// TestIncidentsForReal runs each incident against its installed agent
// (LOOPSIM_AGENTS=1, the binary on PATH; one agent process at a time) and
// checks the verdict is the fixture's; -update rewrites the fixtures.
func TestIncidentsForReal(t *testing.T) {
	if os.Getenv(RealEnv) == "" {
		t.Skipf("set %s=1 to run the incidents against the released agents (their binaries on PATH)", RealEnv)
	}
	only := os.Getenv("LOOPSIM_INCIDENTS")
	for _, in := range Incidents() {
		t.Run(in.Scenario, func(t *testing.T) {
			if only != "" && !slices.Contains(strings.Split(only, ","), in.Scenario) {
				t.Skip("not in LOOPSIM_INCIDENTS")
			}
			p, err := Lookup(in.Agent)
			require.NoError(t, err)
			e := NewEntrant(p, "")
			if e.Absent != "" {
				t.Skip(e.Absent)
			}
			s, err := scenarios.LoadFile(filepath.Join(incidentDir, in.Scenario+".yaml"))
			require.NoError(t, err)
			run, err := RunIncident(context.Background(), in, s, e)
			require.NoError(t, err)
			t.Logf("%s: exit %d, %s, %d requests, %v: %s", in.Scenario, run.Exit, run.FinalEvent, len(run.Requests), run.Broken, run.Verdict)
			path := filepath.Join(incidentFixtures, in.Scenario+".json")
			if *update {
				data, err := run.MarshalFixture()
				require.NoError(t, err)
				require.NoError(t, os.MkdirAll(incidentFixtures, 0o755))
				require.NoError(t, os.WriteFile(path, data, 0o644))
				return
			}
			assert.Equal(t, loadFixture(t, in).Verdict, run.Verdict, "the verdict recorded in %s", path)
		})
	}
}
