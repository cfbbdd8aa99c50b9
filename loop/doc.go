// Package loop is a faithful, deterministic implementation of an agent query
// loop: the state carried between iterations, the continue transitions, the
// terminals, the compaction pipeline and the recovery guards described in
// docs/spec.md, with a [Policy] that holds every number and switch.
//
// The loop talks to the outside world only through small interfaces declared
// here ([Model], [Tools], [StopHooks], [StopFailureHooks], [Compactor],
// [Snipper], [Microcompactor], [Collapser], [TokenCounter],
// [ToolUseSummarizer]) and reports every decision it makes as a typed
// [Event]. The ordered list of events, the trace, is what tests, property
// checks, scenarios and the simulator read. Every iteration ends with a
// [StateRecord] holding the ten state fields of docs/spec.md §1 (the messages as
// IDs and sizes, as a change from the previous record), and each
// [TransitionEvent] lists every field the iteration changed.
//
// Abort is context cancellation: cancel the context given to [Run] and the
// loop observes it while the model streams and while tools run.
//
// The package depends on the standard library only.
package loop
