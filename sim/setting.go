package sim

import (
	"fmt"
	"reflect"
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
	// PolicyFile is the user's policy file the policy was read from
	// ([ReadPolicyFile]); empty for a built-in profile.
	PolicyFile string `json:"policy_file,omitempty"`
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

// NewSetting is the built-in profile named profile, or the user's own
// policy in the file it names (a name ending in .json: [ReadPolicyFile]),
// against [DefaultModel] and [fakemodel.DefaultWorkload]. A policy file's
// setting goes by the name the file gives.
func NewSetting(profile string) (Setting, error) {
	var p loop.Policy
	var err error
	name := profile
	if IsPolicyFile(profile) {
		p, err = ReadPolicyFile(profile)
		name = p.Name
	} else {
		p, err = loop.Profile(profile)
	}
	if err != nil {
		return Setting{}, err
	}
	s := Setting{Name: name, Policy: p, Model: DefaultModel, Workload: fakemodel.DefaultWorkload(),
		IterationLimit: DefaultIterationLimit}
	if IsPolicyFile(profile) {
		s.PolicyFile = profile
	}
	return s, nil
}

// Profile is the name of the profile the setting's policy came from.
func (s Setting) Profile() string { return s.Policy.Name }

// With returns a copy of s with one field set from its text form (read
// by internal/field's rule) and the override recorded in Params and the
// name. The field is named by its path in the setting:
//
//   - a policy field by its JSON name ("auto_compact_buffer", "fallback"),
//     or with "policy." before it;
//   - a workload parameter by "workload." and its path
//     ("workload.faults.overloaded");
//   - "model": a model of [loop.Catalog] or [ModelWorkloads] by name (its
//     window and output maximum, and the starting context and output
//     fitted for it on the transcripts, see [ModelWorkloads]);
//   - "fallback_model": a model of [loop.Catalog] by name, or "none";
//   - a count of [SettingFields] within its bounds: the models' sizes
//     ("model.context_window", "fallback_model.max_output_tokens"; a
//     fallback model set by its size alone starts as a copy of the
//     primary named after it, "NAME-fallback") and "iteration_limit".
func (s Setting) With(name, value string) (Setting, error) {
	value = strings.TrimSpace(value)
	var err error
	switch sf, count := settingField(name); {
	case strings.HasPrefix(name, "workload."):
		s.Workload, err = s.Workload.With(strings.TrimPrefix(name, "workload."), value)
	case name == "model":
		s, err = withModelNamed(s, value)
	case name == "fallback_model":
		s.FallbackModel, err = fallbackNamed(value)
	case count:
		err = s.setCount(sf, value)
	case strings.HasPrefix(name, "model.") || strings.HasPrefix(name, "fallback_model."):
		err = fmt.Errorf("%s has no field %q (known: context_window, max_output_tokens)", name[:strings.IndexByte(name, '.')], name[strings.IndexByte(name, '.')+1:])
	default:
		s.Policy, err = s.Policy.With(strings.TrimPrefix(name, "policy."), value)
	}
	if err != nil {
		return s, fmt.Errorf("setting %s=%s: %w", name, value, err)
	}
	s.Params = append(append([]Param(nil), s.Params...), Param{Field: name, Value: value})
	s.Name = s.Profile()
	for _, p := range s.Params {
		s.Name += " " + p.String()
	}
	return s, nil
}

// SettingField is a field of a [Setting] that [Setting.With] reaches
// besides the policy's and the workload's.
type SettingField struct {
	// Name is its path in the setting ("model.context_window").
	Name string
	// Min and Max bound a count; both zero for a model's name.
	Min, Max int
	// Doc says what it is.
	Doc string
}

// SettingFields lists the fields [Setting.With] reaches besides the
// policy's and the workload's, in the order -fields lists them.
func SettingFields() []SettingField {
	return []SettingField{
		{Name: "model", Doc: "The primary model by name: its window and output maximum (loop.Catalog), and for the transcripts' models the starting context and output fitted on their calls (sim.ModelWorkloads)."},
		{Name: "model.context_window", Min: 1_000, Max: 100_000_000, Doc: "The primary model's context window, in tokens."},
		{Name: "model.max_output_tokens", Min: 1, Max: 10_000_000, Doc: "The primary model's output maximum, in tokens."},
		{Name: "fallback_model", Doc: "The fallback model by name (loop.Catalog), or none; the loop switches to it after repeated overloads when the policy's fallback is on."},
		{Name: "fallback_model.context_window", Min: 1_000, Max: 100_000_000, Doc: "The fallback model's context window, in tokens; set alone, it makes a fallback model the primary's size but for it."},
		{Name: "fallback_model.max_output_tokens", Min: 1, Max: 10_000_000, Doc: "The fallback model's output maximum, in tokens; set alone, it makes a fallback model the primary's size but for it."},
		{Name: "iteration_limit", Min: 1, Max: 10_000_000, Doc: "Halts an episode that has not ended after this many iterations (a harness guard, counted as a failure)."},
	}
}

// settingField is the [SettingFields] entry named name; count says it
// is a count (not a model's name).
func settingField(name string) (SettingField, bool) {
	for _, f := range SettingFields() {
		if f.Name == name {
			return f, f.Max > 0
		}
	}
	return SettingField{}, false
}

// setCount sets the count f from value, within its bounds. A fallback
// model's size set while there is none makes one: the primary's copy,
// named after it.
func (s *Setting) setCount(f SettingField, value string) error {
	n, err := parseInt(f.Name, value, f.Min, f.Max)
	if err != nil {
		return err
	}
	if strings.HasPrefix(f.Name, "fallback_model.") && s.FallbackModel.Name == "" {
		s.FallbackModel = s.Model
		s.FallbackModel.Name += "-fallback"
	}
	v, err := field.Find(reflect.ValueOf(s).Elem(), f.Name)
	if err != nil {
		return err
	}
	v.SetInt(int64(n))
	return nil
}

// fallbackNamed is the fallback model named name: one of [loop.Catalog],
// or none.
func fallbackNamed(name string) (loop.ModelInfo, error) {
	if name == "none" {
		return loop.ModelInfo{}, nil
	}
	k, err := loop.LookupModel(name)
	if err != nil {
		return loop.ModelInfo{}, fmt.Errorf("%w, or none", err)
	}
	return k.ModelInfo, nil
}

// ReplayFlags are the command-line flags that rebuild s: its profile (or
// policy file) and its overrides.
func (s Setting) ReplayFlags() string {
	out := "-profile " + s.Profile()
	if s.PolicyFile != "" {
		out = "-profile " + s.PolicyFile
	}
	if s.WorkloadFile != "" {
		out += " -workload " + s.WorkloadFile
	}
	for _, p := range s.Params {
		out += " -set " + p.String()
	}
	return out
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

// atField names the field a value was read for in err, an
// internal/field error (nil stays nil).
func atField(err error, name string) error {
	if e, ok := err.(*field.Error); ok {
		e.Path = name
	}
	return err
}
