// Package messagesapi is a fake of the Anthropic Messages API
// (POST /v1/messages) over net/http, for putting any agent, in any
// language, under the faults of package fakemodel at the wire level.
//
// A [Server] listens on a local port, like net/http/httptest's servers:
//
//	model := &fakemodel.Model{Script: []fakemodel.Step{
//		{Kind: fakemodel.Overloaded},
//		{Text: "done"},
//	}}
//	srv := messagesapi.NewServer(model, messagesapi.Options{})
//	defer srv.Close()
//	// point the agent at srv.URL (ANTHROPIC_BASE_URL), then:
//	for _, r := range srv.Requests() { fmt.Println(r.Label()) } // M:529, M:text
//
// Its answers come from a [loop.Model]: a scripted [fakemodel.Model] (the
// steps and scenario files the in-process fakes play, so there is one
// source of faults) or a [fakemodel.Episode] of the stochastic workload.
// Each request is decoded into a [loop.Request] (see [Decode]), handed to
// the model, and the blocks and response it produces are written back as
// the API writes them:
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
// with a request-id header (see [StatusOf]): 400 invalid_request_error
// (prompt is too long: N tokens > M maximum), 413 request_too_large, 429
// rate_limit_error with retry-after, 500 api_error, 529 overloaded_error.
// A step that fails after content blocks (fakemodel's stream_error,
// fallback_triggered, connection_dropped and abort with after) streams
// those blocks first, then sends an error event, drops the connection, or
// aborts. When the stream fails with an error event and its last block is
// a tool_use whose input is not a JSON object (the step cut it), that
// block is left open: the error event follows its input_json_delta
// events, without a content_block_stop. A dropped connection is closed without finishing the response,
// so the client reads an unexpected EOF.
//
// A message with role "system" among the others (the API takes them; the
// released agent sends one) counts with the system prompt: it is not one
// of the request's messages.
//
// Before the model sees a request, the server validates it as the API
// does and rejects a broken one with the API's 400 and message, without
// consuming a step: a body that is not JSON, a missing model or
// max_tokens, no messages, an unknown role, empty content, a tool_use
// without its tool_result in the next user message, a tool_result whose
// id is not a tool_use of the previous assistant message, max_tokens over
// the model's output maximum ([Options.Models]). A body over
// [Options.MaxBodyBytes] gets 413.
//
// The model is called under the server's lock, one request at a time, in
// the order requests arrive; its answer is then written without the lock,
// so slow or stalled clients do not hold each other up. The model must
// not block (the fakes never do).
//
// Every request is recorded, normalized to its shape, never its content
// (see [Record]); [Server.WriteJSONL] writes the records as JSON Lines.
package messagesapi
