// Package sdkmodel is a [loop.Model] that talks to the Anthropic Messages
// API through the official Go SDK (github.com/anthropics/anthropic-sdk-go,
// v2). It lets the loop run against anything that speaks the API: the
// fake server in fakemodel (faults on the wire) or, opted into with a key,
// the real API.
//
// Every request is one call: main requests stream (POST /v1/messages with
// "stream": true), a request the loop marks non-streaming is sent without
// streaming. The SDK's own retries are switched off
// (option.WithMaxRetries(0)): the loop's retry layer decides every retry,
// back-off and fallback, so each attempt the trace records is exactly one
// HTTP request.
//
// # What travels and what comes back
//
// A [loop.Request] becomes MessageNewParams: the model, max_tokens, the
// messages in order (one API message per loop message, roles kept; text,
// thinking, tool_use and tool_result blocks), and one tool definition per
// tool name (from [Config.Tools], else an object schema with no
// properties). A tool_use whose input is not a JSON object (a truncated
// reply cuts it) is sent with the input {}. A thinking block is sent back
// with the signature the API gave it when this Model received it.
//
// Content blocks are handed to the loop when their content_block_stop
// arrives (a block cut off by an error or a drop is not), in index order;
// the usage is message_start's, overwritten by message_delta's counts,
// cache tokens included.
//
// # Errors
//
// A failed call returns a [*loop.RequestError] whose kind is decided by
// [Classify]: 400 "prompt is too long" is prompt_too_long, 413 is
// request_too_large, a 400 rejecting an image or document as too large is
// media_too_large, any other 400 is invalid_request, 429 is rate_limited
// (with retry-after-ms, else retry-after in seconds), 529 is overloaded,
// other 5xx are server_error, any other status is other; an error event
// after the stream began is stream_error; a connection that fails before
// the response, or drops or ends before message_stop, is connection. A
// cancelled context returns the context's error, as the loop's seam
// requires. Anything else (a body the SDK cannot decode, events out of
// order) is a plain error: the loop ends the run with it.
//
// Two kinds never come from this Model: image_size (a check a client makes
// before sending) and fallback_triggered (the loop's retry layer decides a
// fallback from the overloads it counts).
//
// # The real API
//
// Pointed at https://api.anthropic.com with a key, the Model runs the
// loop against the real API; see the package example and docs/sdk.md. Tests
// never do: they use loopback servers only.
package sdkmodel
