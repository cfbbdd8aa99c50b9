package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

func TestParseSweep(t *testing.T) {
	for _, c := range []struct {
		spec  string
		field string
		want  []string
	}{
		{"max_output_recoveries=0,1,3", "max_output_recoveries", []string{"0", "1", "3"}},
		{"auto_compact_buffer=5000:30000:5000", "auto_compact_buffer", []string{"5000", "10000", "15000", "20000", "25000", "30000"}},
		{"workload.faults.overloaded=0.01:0.05:0.02", "workload.faults.overloaded", []string{"0.01", "0.03", "0.05"}},
		{"auto_compact_buffer=13_000:13_000:1", "auto_compact_buffer", []string{"13000"}},
		{"workload.faults.overloaded=0.000_5:0.001_5:0.000_5", "workload.faults.overloaded", []string{"0.0005", "0.0010", "0.0015"}},
		{" escalation = true , false ", "escalation", []string{"true", "false"}},
	} {
		s, err := ParseSweep(c.spec)
		if !assert.NoError(t, err, "%q", c.spec) {
			continue
		}
		assert.Equal(t, c.field, s.Field, "%q: field", c.spec)
		assert.Equal(t, c.want, s.Values, "%q: values", c.spec)
	}
}

func TestParseSweepRejectsBadSpecs(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"max_turns", "want field="},
		{"=1,2", "want field="},
		{"max_turns=1,,2", "empty value"},
		{"max_turns=10:1:1", "positive step"},
		{"max_turns=1:10:0", "positive step"},
		{"max_turns=a:10:1", "not a finite number"},
		{"max_turns=1__0:20:5", `"1__0" is not a finite number`},
		{"max_turns=1:1000:1", "at most 100"},
	} {
		_, err := ParseSweep(c.spec)
		assert.ErrorContains(t, err, c.want, "%q", c.spec)
	}
}

func TestGrid(t *testing.T) {
	bases := []Setting{mustSetting(t, "claude-code"), mustSetting(t, "seed")}
	a, _ := ParseSweep("auto_compact_buffer=5000,13000")
	b, _ := ParseSweep("workload.faults.overloaded=0,0.1,0.2")
	g, err := Grid(bases, []Sweep{a, b})
	require.NoError(t, err)
	require.Len(t, g, 12, "want 2 x 2 x 3 settings")
	assert.Equal(t, "claude-code auto_compact_buffer=5000 workload.faults.overloaded=0", g[0].Name, "names")
	assert.Equal(t, "seed auto_compact_buffer=13000 workload.faults.overloaded=0.2", g[11].Name, "names")
	assert.Equal(t, 13000, g[5].Policy.AutoCompactBuffer, "setting 5 does not hold its values: %+v", g[5].Params)
	assert.Equal(t, 0.2, g[5].Workload.Faults.Overloaded, "setting 5 does not hold its values: %+v", g[5].Params)
	assert.Equal(t, "-profile claude-code -set auto_compact_buffer=5000 -set workload.faults.overloaded=0", g[0].ReplayFlags(), "replay flags")
	bad, _ := ParseSweep("auto_compact_bufer=1,2")
	_, err = Grid(bases, []Sweep{bad})
	assert.ErrorContains(t, err, `no field "auto_compact_bufer"`, "a misspelt field")
}

func TestSettingWith(t *testing.T) {
	s := mustSetting(t, "claude-code", "model.context_window=100000", "fallback_model.max_output_tokens=8000", "iteration_limit=50")
	assert.Equal(t, 100_000, s.Model.ContextWindow, "%+v", s)
	assert.Equal(t, loop.ModelInfo{Name: DefaultModel.Name + "-fallback", ContextWindow: 100_000, MaxOutputTokens: 8_000}, s.FallbackModel,
		"a fallback model set by its size alone is the primary's copy but for it")
	assert.Equal(t, 50, s.IterationLimit, "%+v", s)
	assert.Equal(t, "claude-code model.context_window=100000 fallback_model.max_output_tokens=8000 iteration_limit=50", s.Name)

	s = mustSetting(t, "seed", "fallback=false", "policy.max_turns=7", "fallback_model.context_window=50_000")
	assert.False(t, s.Policy.Fallback, "fallback is the policy's own field")
	assert.Equal(t, 7, s.Policy.MaxTurns, "a policy field by its path")
	assert.Equal(t, 50_000, s.FallbackModel.ContextWindow)
	assert.Equal(t, DefaultModel.MaxOutputTokens, s.FallbackModel.MaxOutputTokens)
	named := mustSetting(t, "seed", "fallback_model.context_window=50000", "fallback_model="+loop.Catalog[0].Name)
	assert.Equal(t, loop.Catalog[0].ModelInfo, named.FallbackModel, "a fallback model by name")
	none := mustSetting(t, "seed", "fallback_model.context_window=50000", "fallback_model=none")
	assert.Equal(t, loop.ModelInfo{}, none.FallbackModel)
	for _, c := range []struct{ field, value, want string }{
		{"model.context_window", "12", "model.context_window: 12 is outside [1000, 100000000]"},
		{"fallback_model.context_window", "100_000_001", "fallback_model.context_window: 100000001 is outside [1000, 100000000]"},
		{"fallback_model.max_output_tokens", "0", "outside [1, 10000000]"},
		{"model.name", "x", `model has no field "name" (known: context_window, max_output_tokens)`},
		{"fallback_model.name", "x", `fallback_model has no field "name"`},
		{"fallback_model", "gpt-9", `unknown model "gpt-9"`},
		{"fallback", "perhaps", "not true or false"},
		{"iteration_limit", "many", `iteration_limit: "many" is not an integer`},
		{"iteration_limit", "0", "outside [1, 10000000]"},
		{"workload.output.sigma", "9", "sigma 9"},
		{"max_turns", "-1", "max_turns"},
		{"policy.no_such", "1", `policy has no field "no_such"`},
	} {
		_, err := s.With(c.field, c.value)
		assert.ErrorContains(t, err, c.want, "With(%s, %s)", c.field, c.value)
	}
}

func TestPareto(t *testing.T) {
	xs := []float64{1, 2, 3, 2, 1}
	ys := []float64{5, 2, 1, 3, 5}
	want := []bool{true, true, true, false, true}
	assert.Equal(t, want, Pareto(xs, ys), "Pareto")
}

// TestExpandRangeRefusesWhatCannotBeCounted: Inf, NaN and counts beyond
// any int are errors, never a panic.
func TestExpandRangeRefusesWhatCannotBeCounted(t *testing.T) {
	for spec, want := range map[string]string{
		"max_turns=0:Inf:1":             `"Inf" is not a finite number`,
		"max_turns=0:NaN:1":             `"NaN" is not a finite number`,
		"max_turns=-Inf:0:1":            `"-Inf" is not a finite number`,
		"max_turns=0:1:Inf":             `"Inf" is not a finite number`,
		"backoff_jitter=0:1e300:1e-300": "more than 10^308 values, at most 100",
		"backoff_jitter=0:1e308:1e-308": "more than 10^308 values, at most 100",
		"max_turns=0:1e18:1":            "1e+18 values, at most 100",
		"max_turns=-1e308:1e308:1e307":  "more than 10^308 values",
		"backoff_jitter=0:1e-5:1e-6":    "the step is too small to tell 0 from the next value",
	} {
		require.NotPanics(t, func() {
			_, err := ParseSweep(spec)
			require.ErrorContains(t, err, want, spec)
		})
	}
}
