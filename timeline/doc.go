// Package timeline writes loop traces as a timeline Perfetto
// (ui.perfetto.dev) and chrome://tracing open: the Chrome trace-event
// JSON format. Each episode is a process; its tracks are the iterations,
// the model requests and one track per tool slot of a batch (slices),
// the loop's events (instants: faults, transitions, retries,
// compactions, fallbacks, the terminal) and the context size (a
// counter). Times are simulated (internal/simclock), so the same trace
// gives the same file.
//
// A foreign agent's run, as the fake model API server recorded it
// ([AgentRun], [WriteAgents]), is drawn the same way from the server's
// observations: the run as a slice, its requests as slices from arrival
// to answer, its injected faults as instants, the size of its main
// requests as the context counter.
package timeline
