// Package responses is the OpenAI Responses API on loopsim's fake server
// (see package wire): POST /v1/responses, streamed and not,
// POST /v1/responses/compact and POST /v1/responses/input_tokens, read
// into the loop's terms and answered as the API answers, for agents that
// speak only this API (Codex CLI) and for the official SDKs (openai-go,
// openai-node) pointed at the server's base URL plus "/v1".
//
// # Requests
//
// A request body's input (a string, or a list of items) becomes the
// loop's messages. A string is one user message. In a list, a message
// item of role user or assistant (content a string or a list of parts:
// input_text, output_text, refusal; images, files and audio count only
// by their size) becomes a message of that role; a function_call (and
// Codex's custom_tool_call and local_shell_call) a tool_use block whose
// id is the item's call_id; a function_call_output (and
// custom_tool_call_output) a tool_result block; a reasoning item a
// thinking block (its reasoning_text content, else its summary); a
// compaction item (what /v1/responses/compact returned) a user message
// carrying its encrypted_content. An item of any other type (a web
// search, a file search, an image generation call) is a user message of
// its own counting only by its size. Items group into messages as the
// loop groups blocks: a message item begins a new message unless it
// continues, in its own role, a reasoning item (assistant) or a run of
// function_call_output items (user) just before it; a reasoning item
// begins one unless it follows another; a function_call joins the
// assistant message before it; a function_call_output joins a run of
// outputs before it; a compaction item is a message of its own.
// System and developer messages, the instructions and the tool
// definitions are not messages: they count toward the request's size as
// its system tokens.
//
// Purpose: a request to /v1/responses/compact is a compaction request
// (the endpoint says so); any other request's purpose is [PurposeOf]'s:
// the core's rule, and Codex CLI's own summarisation prompt as the last
// user message.
//
// The fake keeps no state between requests, as a request with "store":
// false gets from the API: a request naming a previous_response_id is
// refused with the API's 400 previous_response_not_found, as the API
// refuses an id it does not know.
//
// # Validation
//
// A request is refused, with OpenAI's 400 body
// {"error":{"message","type","param","code"}} and without consuming a
// step, as the API refuses it: a body that is not a JSON object (or not
// UTF-8); a field of the wrong JSON type (code invalid_type, naming the
// field: "Invalid type for 'max_output_tokens': expected an integer,
// but got a string instead."); a missing model or input
// (missing_required_parameter; a count at /v1/responses/input_tokens
// needs neither); an unknown role or content part type (invalid_value,
// param "input[3].role"); an item_reference (the fake keeps no items); a
// function_call whose call_id no function_call_output answers, an output
// that answers no call, a call_id used twice; max_output_tokens below 16
// or over the model's output maximum; a previous_response_id.
//
// # Answers
//
// A reply is a response object (status completed, or incomplete with
// incomplete_details.reason "max_output_tokens" when the model stopped
// at its cap) whose output holds a reasoning item per thinking block, a
// message item (one output_text part) per text block and a function_call
// item per tool_use block, in the blocks' order, with usage
// (input_tokens counts the cached ones too; input_tokens_details.cached_tokens
// the cache reads). A streamed reply is the API's event sequence, each
// event numbered by sequence_number: response.created,
// response.in_progress, then per item response.output_item.added, its
// deltas (response.content_part.added / response.output_text.delta /
// .done / response.content_part.done for a message;
// response.reasoning_text.delta / .done for reasoning;
// response.function_call_arguments.delta / .done for a call) and
// response.output_item.done, then response.completed or
// response.incomplete. A /v1/responses/compact answer is the API's
// compaction object: the input's user messages, then one compaction
// item whose encrypted_content is the model's summary (the fake does
// not encrypt it).
//
// The API has no stop reason: a response whose model stopped with
// tool_use but sent no tool call (fakemodel's malformed_tool_use) reads
// as an ordinary completed response. A malformed tool call is a
// function_call whose arguments are not JSON.
//
// # Errors
//
// See [API.StatusOf] for the table. In a stream, a failure after the
// stream began is a response.failed event whose response.error carries
// the failure's code (server_error for a stream error, context_length_exceeded
// for a prompt too long, server_is_overloaded, rate_limit_exceeded); a
// prompt too long on a streamed request is sent that way too, as Codex
// expects it. A dropped connection closes the stream without
// response.completed, as Codex reports "stream closed before
// response.completed".
package responses
