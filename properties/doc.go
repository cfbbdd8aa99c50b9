// Package properties checks the invariants of SPEC §5 over finished runs
// of the query loop, generates fault scripts and policies for property
// tests, and holds an independent reference model of the decision table.
//
// The invariants are pure functions over a [Run] (the policy, the
// starting history and the [loop.Result]); [Check] runs them all. The
// simulator and the scenario runner check every run with the same
// functions the property tests use. Determinism, the tenth invariant,
// needs two runs: [CheckDeterminism].
package properties
