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
//
// What the core does for every API:
//
//   - routing: a request goes to the first API whose Route takes it; a
//     path no API takes gets 404, a method its route does not take 405,
//     in the API's error body;
//   - the body limit: a body over [Options.MaxBodyBytes] (default
//     [DefaultMaxBodyBytes], 32 MB) gets the API's 413 and is recorded;
//   - hostile clients: a body that cannot be read (a broken chunked
//     encoding, shorter than its length, stalled past
//     [Options.ReadTimeout]) gets the API's 400 and a record; stalled
//     headers and keep-alive connections idle past [Options.IdleTimeout]
//     are closed; text JSON does not allow and fields of the wrong type
//     have generic checks an API words as it does ([CheckText],
//     [JSONTypeError]);
//   - the client's own input-token count ([InputTokensHeader]);
//   - the model call: under one lock, one request at a time, in the
//     order requests arrive; the answer is then written without the
//     lock, so slow or stalled clients do not hold each other up (the
//     model must not block; the fakes never do);
//   - the outcome: a reply (the API's Reply, or its Stream after the
//     event-stream headers), an error status (the API's Error for the
//     fault; inside the stream when it follows content blocks or is a
//     stream error), a dropped connection (the client reads an
//     unexpected EOF), an abort ([Options.OnAbort], [Server.Abort]), a
//     harness fault (500);
//   - slow streams ([Options.EventDelay]) and clients that leave;
//   - the records ([Record]): the same fields and M:/C: labels whatever
//     the API, what each request kept, dropped and appended of the
//     previous one (from the API's message hashes and shapes), and the
//     request's purpose by the API's rule ([PurposeOf] over its
//     messages, unless the endpoint says compaction).
//
// A token count ([EndpointCount]) is answered from the server's estimate;
// it is not recorded and consumes no step.
package wire
