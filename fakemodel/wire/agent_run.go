package wire

import "time"

// AgentRun is one run of a foreign agent (any agent, in any language) as
// the fake server saw it: the records of the requests it sent and how the
// run ended. Its times are the server's observations. The exporters
// (otelexport, timeline) each take it as it is.
type AgentRun struct {
	// Name names the run: the scenario's name. With the run's position it
	// seeds an exported trace's ID.
	Name string
	// Agent is the agent: its preset's name, or the command; empty means
	// "agent".
	Agent string
	// Records are the server's records of the run's requests, in order.
	Records []Record
	// Exit is the agent's exit status; -1 when it was killed.
	Exit int
	// Outcome is how the run was judged (pass, fail, error, the rules it
	// broke), when not empty.
	Outcome string
	// Error says why the run failed or could not be judged, when not
	// empty.
	Error string
	// Start is when the server started, on the wall clock; the records'
	// Arrival and Done are offsets from it. Zero means a fixed epoch, for
	// runs whose files must stay the same (tests, fixtures).
	Start time.Time
	// Elapsed is how long the run took from Start; the run ends then or at
	// its last request's end, whichever is later.
	Elapsed time.Duration
}
