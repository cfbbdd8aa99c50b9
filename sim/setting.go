package sim

import (
	"fmt"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/internal/field"
	"github.com/loopsim/loopsim/loop"
)

// DefaultModel is the model simulations run against: a 200,000-token
// window (the transcripts' models) and a 64,000-token output cap, so the
// claude-code profile compacts at 167,000 tokens as the transcripts show.
var DefaultModel = loop.ModelInfo{Name: "sim-200k", ContextWindow: 200_000, MaxOutputTokens: 64_000}

// DefaultIterationLimit is the iteration guard of a simulated episode: a
// planned session has at most a thousand replies, so an episode still
// running after this many iterations is not going to end.
const DefaultIterationLimit = 5_000

// Setting is one configuration a simulation runs: a policy, the model it
// runs against, and the workload its episodes are drawn from.
type Setting struct {
	// Name names the setting in tables and plots.
	Name string `json:"name"`
	// Policy is the loop policy.
	Policy loop.Policy `json:"policy"`
	// Model is the primary model.
	Model loop.ModelInfo `json:"model"`
	// FallbackModel is the fallback model; an empty Name means none.
	FallbackModel loop.ModelInfo `json:"fallback_model"`
	// Workload is what the episodes are drawn from.
	Workload fakemodel.Workload `json:"workload"`
	// IterationLimit halts an episode that has not ended (loop.Config's).
	IterationLimit int `json:"iteration_limit"`
	// WorkloadFile is the workload file the workload was read from
	// (see [Setting.WithWorkloadFile]); empty for the built-in one.
	WorkloadFile string `json:"workload_file,omitempty"`
	// Params are the overrides that made this setting from its profile,
	// in the order applied (see [Setting.With]).
	Params []Param `json:"params,omitempty"`
}

// Param is one override: a field and its value in text form.
type Param struct {
	Field string `json:"field"`
	Value string `json:"value"`
}

// String is the parameter as field=value.
func (p Param) String() string { return p.Field + "=" + p.Value }

// NewSetting is the built-in profile named profile against
// [DefaultModel] and [fakemodel.DefaultWorkload].
func NewSetting(profile string) (Setting, error) {
	p, err := loop.Profile(profile)
	if err != nil {
		return Setting{}, err
	}
	return Setting{Name: profile, Policy: p, Model: DefaultModel, Workload: fakemodel.DefaultWorkload(),
		IterationLimit: DefaultIterationLimit}, nil
}

// Profile is the name of the profile the setting's policy came from.
func (s Setting) Profile() string { return s.Policy.Name }

// With returns a copy of s with one field set from its text form and the
// override recorded in Params and the name. The field is a policy field
// by its JSON name ("auto_compact_buffer"), a workload parameter by
// "workload." and its path ("workload.faults.overloaded"), "model" (a
// model of [loop.Catalog] or [ModelWorkloads] by name: its window and
// output maximum, and the starting context and output fitted for it on
// the transcripts, see [ModelWorkloads]), or
// "model.context_window", "model.max_output_tokens",
// "fallback_model.context_window" (a fallback model the size of the
// primary is configured by "fallback=true") or "iteration_limit".
func (s Setting) With(field, value string) (Setting, error) {
	value = strings.TrimSpace(value)
	var err error
	switch {
	case strings.HasPrefix(field, "workload."):
		s.Workload, err = s.Workload.With(strings.TrimPrefix(field, "workload."), value)
	case field == "model":
		s, err = withModelNamed(s, value)
	case strings.HasPrefix(field, "model."):
		s.Model, err = withModel(s.Model, strings.TrimPrefix(field, "model."), value)
	case field == "fallback":
		var on bool
		if on, err = parseBool(field, value); err == nil {
			s.FallbackModel = loop.ModelInfo{}
			if on {
				s.FallbackModel = loop.ModelInfo{Name: s.Model.Name + "-fallback", ContextWindow: s.Model.ContextWindow,
					MaxOutputTokens: s.Model.MaxOutputTokens}
			}
		}
	case field == "iteration_limit":
		s.IterationLimit, err = parseInt(field, value, 1, 10_000_000)
	default:
		s.Policy, err = s.Policy.With(field, value)
	}
	if err != nil {
		return s, fmt.Errorf("setting %s=%s: %w", field, value, err)
	}
	s.Params = append(append([]Param(nil), s.Params...), Param{Field: field, Value: value})
	s.Name = s.Profile()
	for _, p := range s.Params {
		s.Name += " " + p.String()
	}
	return s, nil
}

// ReplayFlags are the command-line flags that rebuild s: its profile and
// its overrides.
func (s Setting) ReplayFlags() string {
	out := "-profile " + s.Profile()
	if s.WorkloadFile != "" {
		out += " -workload " + s.WorkloadFile
	}
	for _, p := range s.Params {
		out += " -set " + p.String()
	}
	return out
}

func withModel(m loop.ModelInfo, field, value string) (loop.ModelInfo, error) {
	var err error
	switch field {
	case "context_window":
		m.ContextWindow, err = parseInt("model.context_window", value, 1_000, 100_000_000)
	case "max_output_tokens":
		m.MaxOutputTokens, err = parseInt("model.max_output_tokens", value, 1, 10_000_000)
	default:
		err = fmt.Errorf("model has no field %q (known: context_window, max_output_tokens)", field)
	}
	return m, err
}

// parseInt reads value as an integer by internal/field's rule and holds
// it to [lo, hi].
func parseInt(name, value string, lo, hi int) (int, error) {
	n, err := field.ParseInt(value, 64)
	if err != nil {
		return 0, atField(err, name)
	}
	if n < int64(lo) || n > int64(hi) {
		return 0, fmt.Errorf("%s: %d is outside [%d, %d]", name, n, lo, hi)
	}
	return int(n), nil
}

// parseBool reads value as a boolean by internal/field's rule.
func parseBool(name, value string) (bool, error) {
	b, err := field.ParseBool(value)
	return b, atField(err, name)
}

// atField names the field a value was read for in err, an
// internal/field error (nil stays nil).
func atField(err error, name string) error {
	if e, ok := err.(*field.Error); ok {
		e.Path = name
	}
	return err
}
