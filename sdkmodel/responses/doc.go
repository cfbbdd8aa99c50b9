// Package responses is a [loop.Model] that talks to the OpenAI Responses
// API (POST /v1/responses) through the official Go SDK
// (github.com/openai/openai-go/v3). It runs the loop against anything
// that speaks the API: loopsim's fake server (fakemodel/fakeapi, whose
// Responses wire is fakemodel/wire/responses) or, with a key, the real
// API.
//
// Every request is one call: a request streams ("stream": true) unless
// the loop marks it non-streaming. The SDK's own retries are off
// (option.WithMaxRetries(0)): the loop's retry layer decides every
// retry, so each attempt the trace records is one HTTP request. A
// compaction request goes to /v1/responses like any other (the loop
// asks the model for a summary and reads its text): the API's
// /v1/responses/compact returns an opaque item the loop cannot read.
//
// # What travels and what comes back
//
// A [loop.Request] becomes ResponseNewParams: the model,
// max_output_tokens (when positive), "store": false, the instructions
// ([Config.Instructions]), one function tool per tool name (from
// [Config.Tools], else an object schema with no properties), and the
// messages as input items, in order: a user message's text blocks as a
// message item of input_text parts and each tool_result as a
// function_call_output; an assistant message's thinking blocks as
// reasoning items (reasoning_text content), its text blocks as one
// output message item of output_text parts, each tool_use as a
// function_call whose call_id is the block's id and whose arguments are
// its input as it is (a truncated reply's cut JSON included). The fake
// server groups these items back into the same messages (see
// fakemodel/wire/responses).
//
// Output items become blocks in their order, each when its
// response.output_item.done arrives (a stream) or from the response's
// output: a message's output_text (or refusal) parts text blocks, a
// reasoning item a thinking block, a function_call a tool_use block.
// The API has no stop reason: an incomplete response whose reason is
// max_output_tokens stopped at max_tokens, one with a function call at
// tool_use, any other at end_turn. Usage: input_tokens less the cached
// ones are the input tokens, cached_tokens the cache reads.
//
// # Errors
//
// A failed call returns a [*loop.RequestError] whose kind [Classify]
// decides: 400 context_length_exceeded is prompt_too_long, a 400 naming
// an image_url is media_too_large, any other 400 invalid_request, 413
// request_too_large, 429 rate_limited (retry-after-ms, else
// retry-after), 503 server_is_overloaded (or slow_down) and 529
// overloaded, other 5xx server_error, any other status other. In a
// stream, response.failed carries a code: context_length_exceeded is
// prompt_too_long, server_is_overloaded overloaded, rate_limit_exceeded
// rate_limited, any other stream_error; an error event is stream_error;
// a stream that fails or ends without response.completed (or
// response.incomplete, or response.failed) is connection. The status is
// the loop's for the kinds whose status it fixes
// ([loop.ErrorKind.Status]: 529 for an overload the API answered 503),
// the API's own otherwise. A cancelled context returns the context's
// error; anything else is a plain error, which ends the run.
package responses
