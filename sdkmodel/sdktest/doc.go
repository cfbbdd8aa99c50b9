// Package sdktest is the shared test harness of sdkmodel and its API
// packages (chat, responses, gemini): RunLibrary plays every scenario of
// the library in-process and again with the loop calling an SDK model
// pointed at the fake server, and compares the two traces. Each API
// package's test gives only its model's constructor and the scenarios its
// wire cannot carry, with the reason for each.
package sdktest
