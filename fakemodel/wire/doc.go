// Package wire is the core of loopsim's fake API server: it answers
// requests from a [loop.Model] (a scripted fakemodel.Model, so the steps
// and scenario files the in-process fakes play are the one source of
// faults, or a fakemodel.Episode of the stochastic workload), records
// every request normalized to its shape, and leaves to an [API] only
// what differs between wire protocols: its routes, how a request body
// reads, how an answer, a stream and an error are written.
//
// The APIs live in packages of their own beside this one: messages
// (Anthropic's Messages API), chat (OpenAI Chat Completions), responses
// (OpenAI Responses) and gemini (Gemini's generateContent). Package
// fakeapi serves all of them on one base URL.
package wire
