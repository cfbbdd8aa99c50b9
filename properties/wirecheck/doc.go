// Package wirecheck tests any agent's query loop over the wire: it draws
// fault schedules with rapid, serves each from loopsim's fake API server
// (every API on one base URL, fakemodel/fakeapi), runs one session of the
// agent against it, checks the wire invariants over the server's
// normalized records and the agent's outcome, and on a violation lets
// rapid shrink the schedule to a minimal one, printed as a scenario file
// (the YAML of package scenarios) with the command that replays it.
//
// The agent is a function ([Agent]) that runs one session of the user's
// own loop (any SDK, any framework) against the base URL and API kind a
// [Session] gives it; [TestAgent] is the entry point inside the user's
// own `go test`:
//
//	func TestMyAgentOnTheWire(t *testing.T) {
//		wirecheck.TestAgent(t, myAgent, wirecheck.Options{MaxRetries: 5})
//	}
//
// The invariants ([InvariantNames], docs/check-agent.md) are pure
// functions over a finished [Run]: the schedule, the records, what the
// agent returned and how long it took. Users add their own as
// [Property] predicates. Schedules derive from rapid's seed alone; the
// only clock readings are measurements (the gap after a retry-after, on
// the server's clock; the session's length), never decisions.
package wirecheck
