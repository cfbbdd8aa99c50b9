// Package chat is a [loop.Model] that talks to OpenAI's Chat Completions
// API through the official Go SDK (github.com/openai/openai-go, v3). It
// lets the loop run against anything that speaks the API: loopsim's fake
// server (fakemodel/fakeapi, base URL http://HOST:PORT/v1) with the
// scenario's faults on the wire, or, given a key, the real API.
//
// Every request is one call: a request streams (POST
// /v1/chat/completions with "stream": true and
// stream_options.include_usage), a request the loop marks non-streaming
// is sent without streaming. The SDK's own retries are switched off
// (option.WithMaxRetries(0)): the loop's retry layer decides every retry,
// back-off and fallback, so each attempt the trace records is one HTTP
// request.
//
// # What travels and what comes back
//
// A [loop.Request] becomes ChatCompletionNewParams: the model,
// max_completion_tokens (left out when the request sets no cap), the
// system prompt ([Config.System]) as a system message, then the
// messages in order: an assistant message is one message (its text as
// content, its tool_use blocks as tool calls whose arguments are the
// input as the model wrote it, JSON or not; thinking is left out, as the
// API takes no reasoning back); a user message is one tool message per
// tool_result (the API has no is_error: an error result travels as its
// text), then a user message with its text, if it has any. One function
// tool per tool name (from [Config.Tools], else an object schema with no
// properties).
//
// A stream marks no block's end, so blocks are handed to the loop as
// they are known to be whole: a run of content (or of the
// reasoning_content some servers add, loopsim's among them) when a delta
// of another kind begins or the answer ends; a tool call as soon as its
// arguments are a whole JSON object (nothing can follow one), else when
// the next begins or the answer ends. A stream that fails or drops hands
// over what arrived, but a tool call cut inside its arguments; the
// user's abort (the context cancelled) hands over what arrived, the tool
// call in progress too, and returns the context's error. The usage is
// the last chunk's: the input is prompt_tokens less cached_tokens (cache
// reads) and cache_write_tokens (cache writes). finish_reason length is
// max_tokens, tool_calls tool_use, anything else end_turn.
//
// # Errors
//
// A failed call returns a [*loop.RequestError] whose kind and status
// [Classify] decides, in the loop's terms so that a trace reads the same
// whatever API the loop spoke: 400 context_length_exceeded is
// prompt_too_long (its message read back into the loop's "prompt is too
// long: N tokens > M maximum"), 503 server_overloaded is overloaded
// (status 529), an error data line in a stream that began is
// stream_error, and so on. A stream that ends without a finish_reason is
// a dropped connection. A cancelled context returns the context's error,
// as the loop's seam requires. Anything else (a body the SDK cannot
// decode, a stream out of order) is a plain error: the loop ends the run
// with it.
//
// Two kinds never come from this Model: image_size (a check a client
// makes before sending) and fallback_triggered (the loop's retry layer
// decides a fallback from the overloads it counts).
//
// # Over the wire
//
// The scenario library run through this Model and the fake server gives
// the in-process trace for every scenario but six, the ones that differ
// over every wire (library_test.go lists them with why): image_size and
// fallback_triggered arrive as the API's 400 and 503, a thrown error as
// a 500, and a run that ends on dropped connections ends with the HTTP
// client's message.
package chat
