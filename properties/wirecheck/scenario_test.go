package wirecheck

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/scenarios"
)

// The scenario file a finding prints loads as written and serves the
// schedule the case played.
func TestFindingScenarioFileLoads(t *testing.T) {
	o := Options{}.withDefaults()
	c := Case{API: "chat", Steps: []fakemodel.Step{
		{Kind: fakemodel.RateLimited, RetryAfterMS: 40, Repeat: 2},
		{Text: "Let me look.", ToolUses: []fakemodel.ToolUse{{Name: "read_file", Input: `{"path":"main.go"}`}}},
		{Kind: fakemodel.Overloaded, Repeat: fakemodel.Forever},
	}}
	text, err := c.referenceFile(o, "wirecheck-example", "an example", []string{"bounded-retries"})
	require.NoError(t, err)
	s, err := scenarios.Parse("wirecheck-example.yaml", text)
	require.NoError(t, err, "%s", text)
	require.NotNil(t, s.Answers)
	assert.Equal(t, c.Steps, s.Answers.Main)
	assert.Equal(t, o.Model, s.Model)
	assert.Contains(t, string(text), `"repeat":"forever"`)
	assert.Contains(t, string(text), "wire:\n    requests: ", "the reference loop's requests are the expectation")
	assert.Equal(t, []string{scenarios.LoopOnlyWire}, s.Expect.LoopOnly, "an agent is not judged by loopsim's loop")
	require.NotNil(t, s.Recheck)
	assert.Equal(t, scenarios.Recheck{API: "chat", Invariants: []string{"bounded-retries"},
		Limits: map[string]float64{"max_retries": 10, "max_compactions": 3, "retry_after_slack_ms": 20, "session_timeout_seconds": 10}}, *s.Recheck)
	back, err := RecheckOptions(s)
	require.NoError(t, err)
	o.APIs = []string{"chat"}
	assert.Equal(t, o, back, "the file holds the agent to the limits it was checked under")
}

// TestRecheckCarriesEveryLimit: a finding's file carries every limit of
// Limits a re-check needs, or notCarried says why not; a new field of
// Limits fails here until it is one or the other.
func TestRecheckCarriesEveryLimit(t *testing.T) {
	o := Options{MaxRetries: 4, MaxCompactions: 2, RetryAfterSlack: 35 * time.Millisecond, SessionTimeout: 90 * time.Second}.withDefaults()
	carried := recheckLimits(o)
	tp := reflect.TypeFor[Limits]()
	for i := range tp.NumField() {
		name, _, _ := strings.Cut(tp.Field(i).Tag.Get("json"), ",")
		_, isCarried := carried[name]
		assert.True(t, isCarried != (notCarried[name] != ""), "Limits.%s (%s): carry it in recheckLimits or say in notCarried why not", tp.Field(i).Name, name)
	}
	s := &scenarios.Scenario{File: "f.yaml", Model: o.Model, Answers: &fakemodel.Answers{Main: []fakemodel.Step{{Text: "a"}}},
		Recheck: &scenarios.Recheck{API: "messages", Invariants: []string{"bounded-retries"}, Limits: carried}}
	back, err := RecheckOptions(s)
	require.NoError(t, err)
	o.APIs = []string{"messages"}
	assert.Equal(t, o, back)
	assert.Equal(t, Case{API: "messages", Steps: []fakemodel.Step{{Text: "a"}}}, RecheckCase(s))

	for _, c := range []struct {
		recheck scenarios.Recheck
		err     string
	}{
		{scenarios.Recheck{API: "messages", Invariants: []string{"nope"}}, `f.yaml: recheck.invariants[0]: no wire invariant named "nope"`},
		{scenarios.Recheck{API: "messages", Invariants: []string{"bounded-retries"}, Limits: map[string]float64{"max_steps": 3}},
			"f.yaml: recheck.limits.max_steps: not a limit of a re-check (bounds the schedules drawn, not a run)"},
		{scenarios.Recheck{API: "messages", Invariants: []string{"bounded-retries"}, Limits: map[string]float64{"patience": 3}},
			`f.yaml: recheck.limits: json: unknown field "patience" (known: max_compactions, max_retries, retry_after_slack_ms, session_timeout_seconds)`},
		{scenarios.Recheck{API: "messages", Invariants: []string{"bounded-retries"}, Limits: map[string]float64{"max_retries": -2}},
			"f.yaml: recheck: MaxRetries -2 is outside 0..1000"},
	} {
		s.Recheck = &c.recheck
		_, err := RecheckOptions(s)
		if assert.Error(t, err) {
			assert.True(t, strings.HasPrefix(err.Error(), c.err), "%v", err)
		}
	}
	s.Recheck = nil
	_, err = RecheckOptions(s)
	assert.EqualError(t, err, "f.yaml: no recheck section: not a check-agent finding")
}

func TestCaseStepFor(t *testing.T) {
	c := Case{Steps: []fakemodel.Step{{Kind: fakemodel.Overloaded, Repeat: 2}, {Text: "a"}, {Kind: fakemodel.Empty, Repeat: fakemodel.Forever}}}
	kinds := []fakemodel.Kind{}
	for n := range 6 {
		s, ok := c.StepFor(n)
		require.True(t, ok)
		kinds = append(kinds, s.Kind)
	}
	assert.Equal(t, []fakemodel.Kind{fakemodel.Overloaded, fakemodel.Overloaded, "", fakemodel.Empty, fakemodel.Empty, fakemodel.Empty}, kinds)
	_, ok := Case{Steps: []fakemodel.Step{{Text: "a"}}}.StepFor(1)
	assert.False(t, ok)
	assert.Equal(t, 2, c.Faults())
}

func TestOptionsRefused(t *testing.T) {
	for _, o := range []Options{{APIs: []string{"soap"}}, {MaxRetries: -1}, {Skip: []string{"nope"}}, {MaxSteps: 99},
		{Properties: []Property{{Name: "x"}}}, {RetryAfters: []time.Duration{-1}}} {
		assert.Error(t, o.withDefaults().validate(), "%+v", o)
	}
	assert.NoError(t, Options{}.withDefaults().validate())
}
