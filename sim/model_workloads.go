package sim

import (
	"fmt"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// ModelWorkload is what the workload draws differently for one model:
// its starting context and its output per call, fitted on the
// transcripts' calls of that model (`simulate calibrate -model NAME DIR`
// over the maintainers' transcripts, docs/calibration.md; the targets of
// each model are in calibration_targets.json). The rest of the workload is
// the pooled one.
type ModelWorkload struct {
	// Model is the model's name and limits, for models [loop.Catalog]
	// does not hold; a model the catalog holds keeps the catalog's limits.
	Model loop.ModelInfo
	// StartContext is the starting context; nil keeps the pooled one (no
	// transcript starts with the model).
	StartContext *fakemodel.Uniform
	// Output is the output of one reply.
	Output fakemodel.LogNormal
	// Calls is the number of the model's calls the fit saw.
	Calls int
}

// ModelWorkloads are the models of the transcripts, with the workload
// fitted for each. Limits not in [loop.Catalog]: a 200,000-token window
// for the Claude models (their transcripts compact at 155k-170k of it),
// the 258,400 tokens the Codex rollout reports, and the simulation's
// default output cap (64,000: not measured).
var ModelWorkloads = []ModelWorkload{
	{Model: loop.ModelInfo{Name: "claude-opus-4-6", ContextWindow: 200_000, MaxOutputTokens: 64_000},
		StartContext: &fakemodel.Uniform{Min: 24_562, Max: 27_147}, Output: fakemodel.LogNormal{Median: 145, Sigma: 1.2, Min: 1, Max: 1_000_000}, Calls: 375},
	{Model: loop.ModelInfo{Name: "claude-opus-4-5", ContextWindow: 200_000, MaxOutputTokens: 64_000},
		StartContext: &fakemodel.Uniform{Min: 21_157, Max: 23_384}, Output: fakemodel.LogNormal{Median: 283, Sigma: 1.08, Min: 1, Max: 1_000_000}, Calls: 187},
	{Model: loop.ModelInfo{Name: "claude-haiku-4-5", ContextWindow: 200_000, MaxOutputTokens: 32_000},
		Output: fakemodel.LogNormal{Median: 217, Sigma: 0.771, Min: 1, Max: 1_000_000}, Calls: 133},
	{Model: loop.ModelInfo{Name: "claude-sonnet-4", ContextWindow: 200_000, MaxOutputTokens: 64_000},
		StartContext: &fakemodel.Uniform{Min: 13_496, Max: 14_917}, Output: fakemodel.LogNormal{Median: 45.4, Sigma: 2.01, Min: 1, Max: 1_000_000}, Calls: 62},
	{Model: loop.ModelInfo{Name: "gpt-5.3-codex", ContextWindow: 258_400, MaxOutputTokens: 64_000},
		StartContext: &fakemodel.Uniform{Min: 16_293, Max: 18_008}, Output: fakemodel.LogNormal{Median: 259, Sigma: 1.15, Min: 1, Max: 1_000_000}, Calls: 286},
}

// modelWorkload finds the fitted workload of a model by name.
func modelWorkload(name string) (ModelWorkload, bool) {
	for _, m := range ModelWorkloads {
		if m.Model.Name == name {
			return m, true
		}
	}
	return ModelWorkload{}, false
}

// withModelNamed sets s's model by name: its limits from [loop.Catalog],
// else from [ModelWorkloads]; and, unless s runs on a workload file, the
// model's starting context and output from ModelWorkloads, with no
// spread between sessions on them (the model's fit is of its own
// sessions; the population's other spreads are kept).
func withModelNamed(s Setting, name string) (Setting, error) {
	mw, fitted := modelWorkload(name)
	k, err := loop.LookupModel(name)
	switch {
	case err == nil:
		s.Model = k.ModelInfo
	case fitted:
		s.Model = mw.Model
	default:
		var names []string
		for _, m := range ModelWorkloads {
			names = append(names, m.Model.Name)
		}
		return s, fmt.Errorf("%w; fitted on transcripts: %s", err, strings.Join(names, ", "))
	}
	if fitted && s.WorkloadFile == "" {
		// the model's fit is of its own sessions (one or two sources):
		// what it sets does not spread between sessions
		if mw.StartContext != nil {
			s.Workload.StartContext = *mw.StartContext
			s.Workload.Population.StartContext = 0
		}
		s.Workload.Output = mw.Output
		s.Workload.Population.Output = 0
	}
	return s, nil
}
