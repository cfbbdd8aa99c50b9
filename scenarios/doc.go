// Package scenarios reads scenario files, runs them through the loop
// against the fakes of package fakemodel, and judges the runs.
//
// A scenario is a YAML file (the format is documented field by field in
// README.md): a profile and policy overrides, a starting conversation,
// the model's script, the tools, stop hooks and compactions, and what
// the run must do: its terminal, its exact transition sequence, counters
// and the invariants of package properties it must keep or, for a known
// finding, break.
//
// [Parse] and [Load] are strict: an unknown field, a value of the wrong
// type, a missing required field or an impossible value is an [*Error]
// naming the file, line, column and field. [Run] builds fresh fakes,
// runs the loop, checks the invariants and returns an [Outcome] whose
// [Outcome.Diff] shows what departed from the expectation.
//
// The library of scenarios ships in library/ ([Library]); each one's
// trace is pinned as JSON Lines under testdata/golden, its readable form
// beside it, and compared on every go test (go test ./scenarios/...
// -update rewrites them).
package scenarios
