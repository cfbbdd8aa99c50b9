// Package timeline writes loop traces as a timeline Perfetto
// (ui.perfetto.dev) and chrome://tracing open: the Chrome trace-event
// JSON format. Each episode is a process; its tracks are the iterations,
// the model requests and one track per tool slot of a batch (slices),
// the loop's events (instants: faults, transitions, retries,
// compactions, fallbacks, the terminal) and the context size (a
// counter). Times are simulated (internal/simclock), so the same trace
// gives the same file.
package timeline
