// Package properties checks the invariants of docs/spec.md §5 over finished runs
// of the query loop, generates fault scripts and policies for property
// tests, explores every short fault script exhaustively, and holds an
// independent reference model of the decision table.
//
// # Invariants
//
// The invariants are small pure functions over a [Run] (the policy, the
// starting history and the [loop.Result]); [Check] runs them all and
// returns each broken one as a [Violation] naming the event, the counter
// and the bound. The simulator and the scenario runner check every run
// with the same functions. Determinism, the tenth invariant, needs two
// runs: [CheckDeterminism]. Bounds follow the policy: [IterationBound]
// states the termination bound.
//
// # Testing your own policy
//
// [Test] is the entry point for a user's own `go test`: it checks every
// invariant and the user's own [Property] predicates over runs rapid
// draws for the user's policy, half of them driving one of the policy's
// guards to its cap ([PressureCaseGen]), and reports a failure as the
// shrunk case, the trace around the violation and the replay command.
//
// # Generators
//
// A [Case] is one run as plain data (policy, models, fault script, the
// fakes' behaviours, starting history, caller settings) and
// [Case.Execute] runs it. [CaseGen] draws cases for a profile as it is,
// [SwarmCaseGen] with a policy drawn swarm-style by [PolicyGen]; each case
// switches fault kinds and features on or off ([Swarm]), so rapid's
// shrinking keeps only what a counterexample needs. PolicyGen draws every
// field of [loop.Policy] but a few it keeps at the profile's value, each
// listed with its reason (the name, the window and its buffers, the
// caller's max turns); a test fails when Policy gains a field that is
// neither drawn nor listed.
//
// # Findings, reference model, exhaustive exploration
//
// [KnownFindings] are the ways a profile breaks an invariant on purpose
// (the seed's unbounded stop-hook blocks and repeated escalation), each
// with the policy option that fixes it. [Decide] is the decision table
// restated from docs/spec.md §2-§4, docs/profile-claude-code.md and
// docs/profile-codex.md without reusing package loop's code, with the API
// retry layer, the outer retry layer and model fallback ([RetryLayer])
// and auto-compact and the blocking limit before each request
// ([PreRequest]); a test drives it and the loop side by side over the
// three profiles and the policies PolicyGen draws from them. [Explore] runs every script up to a length over
// the fault [Alphabet]. [Coverage] and [Reachable] back the coverage
// guard of the tests.
//
// # Running the tests
//
//	go test ./properties/...                     # default budget, fixed rapid seed
//	go test ./properties/... -rapid.checks=2000  # 20x the cases (25 a check)
//	go test ./properties/... -rapid.seed=7       # other cases
//	go test ./properties/... -properties.depth=4 # exhaustive to length 4
//	go test ./properties/... -run Invariants -v  # coverage counts and verdicts
//	go test ./properties/... -update             # rewrite finding fixtures
//	go test ./properties -fuzz=FuzzInvariants
//	go test ./properties -run '^$' -bench . -cpu 1
package properties
