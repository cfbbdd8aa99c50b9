// Package gemini is a [loop.Model] that talks to Gemini's
// generateContent API through the official Go SDK
// (google.golang.org/genai). It lets the loop run against anything that
// speaks the API: loopsim's fake server (package fakemodel/fakeapi,
// faults on the wire) or, with a key, the real API.
//
// Every request is one call: main requests stream
// (models.GenerateContentStream, :streamGenerateContent?alt=sse), a
// request the loop marks non-streaming is sent without streaming
// (models.GenerateContent). The SDK's HTTP retries are off (its
// default) and so is its automatic continuation of a cut stream: the
// loop's retry layer decides every retry, so each attempt the trace
// records is exactly one HTTP request.
//
// # What travels and what comes back
//
// A [loop.Request] becomes contents (one per loop message: user as
// "user", assistant as "model"), maxOutputTokens, the system instruction
// ([Config.System]) and one function declaration per tool name (from
// [Config.Tools], else the name alone). Text blocks are text parts,
// thinking blocks thought parts, a tool_use a functionCall with its id
// and its input as args (none when the input is not a JSON object: a
// truncated reply cut it), a tool_result a functionResponse with the
// tool_use's id and name and {"output": text}, or {"error": text} for an
// error result. A thought signature the API gave a function call or a
// thought is sent back with it.
//
// Coming back, a functionCall is a tool_use at once (the API sends calls
// whole; one without an id gets "call_N", numbered by the Model); a run
// of text parts is one text block and a run of thought parts one
// thinking block, handed to the loop when a part of another kind
// follows or the answer ends, by an error object or a drop included
// (the parts that arrived are the partial reply the loop keeps). Two text blocks in a row therefore reach the
// loop as one: the API has no block boundaries. The stop reason and
// usage are read as [accumulator.response] says: STOP with a function
// call is tool_use, MAX_TOKENS max_tokens, MALFORMED_FUNCTION_CALL a
// tool_use stop without a tool_use; promptTokenCount less the cached
// tokens is the input, cachedContentTokenCount the cache reads,
// candidates and thoughts the output.
//
// # Errors
//
// A failed call returns a [*loop.RequestError] whose kind [Classify]
// decides, in the loop's terms: the API's 400 for an input over the
// limit becomes prompt_too_long reading "prompt is too long: N tokens >
// M maximum", its 503 overloaded (529), its 429 rate_limited with the
// RetryInfo detail's delay as the retry-after; an error object in a
// stream that had begun (the API has no error event) is stream_error; a
// stream that drops, or ends without a finish reason, is connection. A
// cancelled context returns the context's error, as the loop's seam
// requires. Anything else is a plain error: the loop ends the run with
// it.
//
// Two kinds never come from this Model: image_size (a check a client
// makes before sending) and fallback_triggered (the loop's retry layer
// decides a fallback from the overloads it counts). A 503 is always an
// overload: the API gives its overload no status of its own.
package gemini
