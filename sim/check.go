package sim

import (
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/properties"
)

// Violation is an invariant an episode broke.
type Violation struct {
	// Invariant names the invariant.
	Invariant string `json:"invariant"`
	// Event is the index in the trace of the event that broke it, -1 for
	// none.
	Event int `json:"event"`
	// Detail says how.
	Detail string `json:"detail"`
	// Finding names the known finding that explains the violation
	// (properties.KnownFindings), empty when none does.
	Finding string `json:"finding,omitempty"`
}

// Liveness reports whether the violation is of termination (liveness)
// rather than of a safety invariant.
func (v Violation) Liveness() bool { return v.Invariant == LivenessInvariant }

// LivenessInvariant is the invariant that is about liveness: every
// episode ends, within the bound its policy allows.
const LivenessInvariant = "termination"

// Checker checks one finished episode of setting s: its starting history
// and its result, trace kept. It returns the invariants the episode
// broke; nil means none.
type Checker func(s *Setting, initial []loop.Message, res *loop.Result) []Violation

// CheckProperties is the [Checker] of package properties: every
// invariant of docs/spec.md §5, each violation named by the known finding
// that explains it, if one does.
func CheckProperties(s *Setting, initial []loop.Message, res *loop.Result) []Violation {
	models := []loop.ModelInfo{s.Model}
	if s.FallbackModel.Name != "" {
		models = append(models, s.FallbackModel)
	}
	run := properties.Run{Policy: s.Policy, Initial: initial, Result: res, Models: models}
	vs := properties.Check(run)
	if len(vs) == 0 {
		return nil
	}
	findings := properties.KnownFindings()
	out := make([]Violation, len(vs))
	for i, v := range vs {
		out[i] = Violation{Invariant: v.Invariant, Event: v.Event, Detail: v.Detail}
		for _, f := range findings {
			if f.Explains(run, v) {
				out[i].Finding = f.Name
				break
			}
		}
	}
	return out
}
