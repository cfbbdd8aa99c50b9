package sim

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
		{" escalation = true , false ", "escalation", []string{"true", "false"}},
	} {
		s, err := ParseSweep(c.spec)
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		if s.Field != c.field || !slices.Equal(s.Values, c.want) {
			t.Errorf("%q: %s=%v, want %s=%v", c.spec, s.Field, s.Values, c.field, c.want)
		}
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
		{"max_turns=1:1000:1", "at most 100"},
	} {
		if _, err := ParseSweep(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error containing %q", c.spec, err, c.want)
		}
	}
}

func TestGrid(t *testing.T) {
	bases := []Setting{mustSetting(t, "claude-code"), mustSetting(t, "seed")}
	a, _ := ParseSweep("auto_compact_buffer=5000,13000")
	b, _ := ParseSweep("workload.faults.overloaded=0,0.1,0.2")
	g, err := Grid(bases, []Sweep{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 12 {
		t.Fatalf("%d settings, want 2 x 2 x 3", len(g))
	}
	if g[0].Name != "claude-code auto_compact_buffer=5000 workload.faults.overloaded=0" ||
		g[11].Name != "seed auto_compact_buffer=13000 workload.faults.overloaded=0.2" {
		t.Errorf("names: %q ... %q", g[0].Name, g[11].Name)
	}
	if g[5].Policy.AutoCompactBuffer != 13000 || g[5].Workload.Faults.Overloaded != 0.2 {
		t.Errorf("setting 5 does not hold its values: %+v", g[5].Params)
	}
	if g[0].ReplayFlags() != "-profile claude-code -set auto_compact_buffer=5000 -set workload.faults.overloaded=0" {
		t.Errorf("replay flags %q", g[0].ReplayFlags())
	}
	bad, _ := ParseSweep("auto_compact_bufer=1,2")
	if _, err := Grid(bases, []Sweep{bad}); err == nil || !strings.Contains(err.Error(), `no field "auto_compact_bufer"`) {
		t.Errorf("a misspelt field: %v", err)
	}
}

func TestSettingWith(t *testing.T) {
	s := mustSetting(t, "claude-code", "model.context_window=100000", "fallback=true", "iteration_limit=50")
	if s.Model.ContextWindow != 100_000 || s.FallbackModel.ContextWindow != 100_000 || s.IterationLimit != 50 {
		t.Errorf("%+v", s)
	}
	for _, c := range []struct{ field, value, want string }{
		{"model.context_window", "12", "outside"},
		{"model.name", "x", "no field"},
		{"fallback", "perhaps", "not true or false"},
		{"iteration_limit", "many", "not an integer"},
		{"workload.output.sigma", "9", "sigma 9"},
		{"max_turns", "-1", "max_turns"},
	} {
		if _, err := s.With(c.field, c.value); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("With(%s, %s): %v, want an error containing %q", c.field, c.value, err, c.want)
		}
	}
}

func TestPareto(t *testing.T) {
	xs := []float64{1, 2, 3, 2, 1}
	ys := []float64{5, 2, 1, 3, 5}
	want := []bool{true, true, true, false, true}
	if got := Pareto(xs, ys); !slices.Equal(got, want) {
		t.Errorf("Pareto = %v, want %v", got, want)
	}
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
