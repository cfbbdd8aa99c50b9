// Package gemini is Gemini's generateContent API for loopsim's fake
// server (package wire's core serves it; package fakeapi serves it
// beside the other APIs): POST /v1beta/models/{model}:generateContent,
// :streamGenerateContent?alt=sse and :countTokens, and the same under
// /v1/. Any model name in the path is taken (Gemini CLI calls side
// models); it is the request's model.
//
// # Requests
//
// A body is read into the loop's terms: each of "contents" is a message
// (role "user", or none, is the user's; "model" is the assistant's), each
// of its parts a block: text, a thought (text with "thought": true) as a
// thinking block, a functionCall as a tool_use (its args as the input),
// a functionResponse as a tool_result (its text is the response's
// "output" when that is all it holds, an "error" alone marks an error
// result, anything else is the response as JSON). Data the loop has no
// block for (inlineData, fileData, executable code) becomes a text block
// carrying only its size. "systemInstruction" and the tools count as
// system tokens; the function declarations' names are the request's
// tools; generationConfig.maxOutputTokens is its output cap (0 when
// unset). Fields are read in either spelling (maxOutputTokens,
// max_output_tokens), as the API reads them; fields the server does not
// read are ignored (the API refuses unknown names: the server does not,
// so a newer client's fields pass). countTokens takes "contents" or a
// whole "generateContentRequest".
//
// Function calls pair with their responses by id when they carry one,
// else by name in order (see pair): a call without an id is given
// "gemini_call_<content>_<part>" (from 1), and a response without one
// answers the first call of the previous turn with its name not answered
// yet.
//
// # Validation
//
// A body is refused with the API's 400, {"error":{"code":400,
// "message":...,"status":"INVALID_ARGUMENT"}}, before the model sees it
// (no step is consumed) when: it is not JSON, not an object, or not
// valid UTF-8; a field has the wrong type (the message names it in the
// API's words, "Invalid value at 'generation_config.max_output_tokens'
// (TYPE_INT32), "many""); contents are missing or a content has no
// parts; a role is neither user nor model; a part has no data or two; a
// function call or response has no name, or sits in the other side's
// turn; a function call turn does not follow a user turn, or is not
// followed by a function response turn with as many responses; a
// function response turn does not follow a function call turn; a
// response answers no call; two calls of a turn share an id;
// maxOutputTokens is negative or over a known model's maximum.
//
// # Answers
//
// A reply is a GenerateContentResponse: one candidate whose content
// (role "model") has a part per block, a finishReason (STOP; MAX_TOKENS
// for a truncated reply; MALFORMED_FUNCTION_CALL for the loop's tool_use
// stop without a tool_use, with a finishMessage), usageMetadata
// (promptTokenCount counts every input token, cachedContentTokenCount
// the ones read from a cache, candidatesTokenCount the output,
// totalTokenCount their sum), modelVersion (the request's model) and
// responseId. Function calls always carry an id (the tool_use's). A
// stream is data-only server-sent events, one GenerateContentResponse
// each, the last carrying the finish reason and the usage (see
// [API.Stream]). The API has no error event: a stream cut after k blocks
// ends with one chunk that is the API's error object, which the genai
// SDKs surface as an APIError; a dropped connection ends without a last
// chunk. countTokens answers {"totalTokens": N}.
//
// Failures are the API's statuses ([API.StatusOf]): prompt too long is a
// 400 INVALID_ARGUMENT reading "The input token count (N) exceeds the
// maximum number of tokens allowed (M).", a rate limit a 429
// RESOURCE_EXHAUSTED with a google.rpc.RetryInfo detail, an overload a
// 503 UNAVAILABLE, a server error a 500 INTERNAL.
//
// # Purpose
//
// A request's purpose is [PurposeOf]'s: the core's rule, extended to
// Gemini CLI's compression prompt, which asks for a <state_snapshot>.
package gemini
