// Package sim is loopsim's Monte Carlo simulator: it runs the query loop
// of package loop against thousands of sessions drawn from the stochastic
// workload of package fakemodel, and reports what a policy does to tokens,
// failures and cost, as tables and plots.
//
// A simulation is deterministic. One root seed derives every episode's
// seed, and each episode's seed derives its own streams (the workload,
// the injected faults, the loop's retry jitter), so an episode plays the
// same whatever the parallelism, and any one of them can be replayed
// alone from its seed. Aggregation streams: memory does not grow with the
// number of episodes.
//
// Safety and liveness are reported apart: safety is the invariants of
// docs/spec.md §5, checked on every episode by a [Checker] (the properties
// package's); liveness is termination: an episode that reaches the
// iteration limit is counted as halted, not as a crash.
package sim
