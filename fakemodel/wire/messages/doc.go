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
// the model's output maximum ([wire.Options.Models]). A body over
// [wire.Options.MaxBodyBytes] gets 413 request_too_large.
//
// The purpose of a request (main or compaction) is [wire.PurposeOf] over
// its messages.
package messages
