package sim

import "github.com/loopsim/loopsim/loop"

// Violation is an invariant an episode broke.
type Violation struct {
	// Invariant names the invariant.
	Invariant string `json:"invariant"`
	// Event is the index in the trace of the event that broke it.
	Event int `json:"event"`
	// Detail says how.
	Detail string `json:"detail"`
}

// Checker checks one finished episode: its policy, its starting history
// and its result, trace kept. It returns the invariants the episode
// broke; nil means none.
type Checker func(policy loop.Policy, initial []loop.Message, res *loop.Result) []Violation
