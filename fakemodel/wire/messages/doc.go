// Package messages is Anthropic's Messages API (POST /v1/messages and
// POST /v1/messages/count_tokens) as a [wire.API], for the fake server
// of package wire: an agent that speaks the Messages API, in any
// language, meets the faults of package fakemodel on the wire. Package
// fakeapi serves it with the other APIs on one base URL:
//
//	model := &fakemodel.Model{Script: []fakemodel.Step{
//		{Kind: fakemodel.Overloaded},
//		{Text: "done"},
//	}}
//	srv := fakeapi.NewServer(model, wire.Options{})
//	defer srv.Close()
//	// point the agent at srv.URL (ANTHROPIC_BASE_URL), then:
//	fmt.Println(wire.Labels(srv.Requests())) // [M:529 M:text]
//
// Each request is decoded into a [loop.Request] (see [API.Decode]),
// handed to the model, and the blocks and response it produces are
// written back as the API writes them:
//
//   - with "stream": true, as server-sent events: message_start, ping,
//     content_block_start / content_block_delta / content_block_stop for
//     text (text_delta), thinking (thinking_delta, signature_delta) and
//     tool_use (input_json_delta), message_delta with the stop reason and
//     usage, message_stop;
//   - otherwise as one JSON message.
//
// A failure becomes the API's error: the status and a JSON body
// {"type":"error","error":{"type":...,"message":...},"request_id":...}
// with a request-id header (see [API.StatusOf]): 400
// invalid_request_error (prompt is too long: N tokens > M maximum), 413
// request_too_large, 429 rate_limit_error with retry-after, 500
// api_error, 529 overloaded_error. A step that fails after content
// blocks (fakemodel's stream_error, fallback_triggered,
// connection_dropped and abort with after) streams those blocks first,
// then sends an error event, drops the connection, or aborts. When the
// stream fails with an error event and its last block is a tool_use
// whose input is not a JSON object (the step cut it), that block is left
// open: the error event follows its input_json_delta events, without a
// content_block_stop. A dropped connection is closed without finishing
// the response, so the client reads an unexpected EOF.
//
// A message with role "system" among the others (the API takes them; the
// released agent sends one) counts with the system prompt: it is not one
// of the request's messages.
//
// Before the model sees a request, the server validates it as the API
// does and refuses a broken one with the API's 400 and message, without
// consuming a step: a body that is not JSON, a missing model or
// max_tokens, no messages, an unknown role, empty content, a tool_use
// without its tool_result in the next user message, a tool_result whose
// id is not a tool_use of the previous assistant message, max_tokens over
// the model's output maximum ([wire.Options.Models]), a tool_use id used
// twice in the conversation ("`tool_use` ids must be unique"), two
// tool_results for one id in a message ("each tool_use must have a
// single result"). A body over [wire.Options.MaxBodyBytes] (32 MB by
// default, the API's limit) gets 413 request_too_large.
//
// Where the API's behaviour had to be chosen, it is the API's as its
// answers to agents show it:
//
//   - text JSON does not allow (bytes that are not UTF-8, half of a
//     surrogate pair in a \u escape) is refused with "The request body
//     is not valid JSON: ... line L column C (char N)", as the API
//     refuses a lone surrogate; encoding/json alone would have read it;
//   - the Content-Type header is not checked: the body is read as JSON
//     whatever it says (a text/plain body that is JSON is answered);
//   - a content block of a type the API does not know is refused ("Input
//     tag 'x' found using 'type' does not match any of the expected
//     tags: ..."); the types it knows but the loop has no type for
//     (image, document, server tools, ...) are read as their size;
//   - a field of the wrong JSON type is named with the type it wants in
//     the API's words: "max_tokens: Input should be a valid integer",
//     "messages.0.content.1.text: Input should be a valid string".
//
// The purpose of a request (main or compaction) is [wire.PurposeOf] over
// its messages.
package messages
