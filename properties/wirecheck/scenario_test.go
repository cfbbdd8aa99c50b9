package wirecheck

import (
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
	text, err := c.referenceFile(o, "wirecheck-example", "an example")
	require.NoError(t, err)
	s, err := scenarios.Parse("wirecheck-example.yaml", text)
	require.NoError(t, err, "%s", text)
	require.NotNil(t, s.Answers)
	assert.Equal(t, c.Steps, s.Answers.Main)
	assert.Equal(t, o.Model, s.Model)
	assert.Contains(t, string(text), `"repeat":"forever"`)
	assert.Contains(t, string(text), "wire:\n    requests: ", "the reference loop's requests are the expectation")
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
