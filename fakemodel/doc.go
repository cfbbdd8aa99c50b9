// Package fakemodel provides fakes for every seam of package loop, written
// as plain data in the manner of net/http/httptest.
//
// A [Model] is a script: a list of [Step] values, one consumed per request
// (main and compaction requests alike). [Tools] maps tool names and call IDs
// to [Tool] behaviours. [StopHooks], [StopFailureHooks], [Compactor] and
// [Summarizer] are lists of outcomes consumed one per call. A test reads a fake's exported fields
// to see exactly what the loop will be told, edits them to change it, and
// after the run reads the same fakes for what the loop sent them (Requests,
// Calls, Inputs).
//
//	model := &fakemodel.Model{Window: 200_000, Script: []fakemodel.Step{
//		{ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"path":"a.go"}`}}},
//		{Kind: fakemodel.PromptTooLong},
//		{Text: "<summary>read a.go</summary>"}, // the compaction request
//		{Text: "done"},
//	}}
//
// The fakes are deterministic: they never sleep, read the clock or draw
// random numbers (except [Workload], which draws only from streams seeded
// per episode), and never range over a map. Every API fault a fake
// produces is a [*loop.RequestError] with the kind and status the loop's
// retry layer expects; a [Thrown] step fails with a plain error instead
// (a failure that is not an API answer: model_error). Mistakes in the test itself (a script run out, an
// invalid step) are distinct error types ([*ExhaustedError],
// [*StepError]), never a RequestError, so they cannot pass for API
// failures.
//
// Panics the fakes are told to raise are not recovered here: recovering
// them is the loop's job.
package fakemodel
