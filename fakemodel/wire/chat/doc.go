// Package chat is OpenAI's Chat Completions API (POST
// /v1/chat/completions) as a [wire.API] of loopsim's fake server: point
// the OpenAI SDKs (base URL http://HOST:PORT/v1), Qwen Code, opencode's
// openai-compatible provider or aider at the server, and the scenario's
// faults reach them in the API's own shapes.
//
// # Requests
//
// A request body is read into the loop's terms:
//
//   - system and developer messages count as system tokens, with the
//     tool definitions: they are not the conversation's messages;
//   - a user message is a user message: its content a string or an array
//     of parts (text parts are text blocks; image_url, input_audio and
//     file parts text blocks carrying only their size);
//   - an assistant message is an assistant message: reasoning_content
//     (see Thinking) a thinking block, its content (a string, or text and
//     refusal parts) a text block, each of its tool_calls a tool_use
//     block whose input is the arguments string as sent;
//   - a tool message is a tool_result block answering its tool_call_id.
//     A run of tool messages, with the user message right after it, is
//     one loop user message (the results, then the text), as the loop
//     holds a turn's tool results with what the user added;
//   - the output cap is max_completion_tokens, else max_tokens (0 when
//     neither is set); stream, and stream_options.include_usage, say how
//     to answer; the tools' names are the request's tools.
//
// The purpose rule is [PurposeOf] on the messages so read: a request is
// a compaction request when its last user message (its last text, or a
// tool result's) asks for a summary between summary tags ([wire.PurposeOf]),
// or (its text) for a <state_snapshot> as Qwen Code asks, or for a
// summary of a transcript it holds between <conversation> tags as
// opencode asks.
//
// Before the model sees a request it is checked as the API checks it, and
// refused with the API's 400 body {"error": {"message", "type":
// "invalid_request_error", "param", "code"}} naming the field: a body
// that is not a JSON object in UTF-8; model or messages missing; no
// messages; a field of the wrong JSON type ("Invalid type for
// 'max_tokens': expected an integer, but got a string instead.",
// code invalid_type); an unknown role or content part type; an output
// cap below 1, or over the model's maximum (wire.DecodeOptions.Models);
// stream_options without stream; an assistant message with neither
// content nor tool calls; two tool calls of one message with one id; a
// tool call of an assistant message not answered by a tool message before
// the next other message; a tool message that answers no pending tool
// call (or one already answered). Fields the server does not read are
// ignored, as OpenAI-compatible servers do (the real API refuses
// unknown top-level fields; clients send many it knows). The
// Content-Type header is not checked: the body is read as JSON whatever
// it says. A body whose text JSON does not allow (bytes that are not
// UTF-8, half of a surrogate pair in a \u escape: [wire.CheckText]) is
// refused as one that does not parse. Content part types the API does not list
// are refused naming the part; a request's n is not read (one choice is
// answered).
//
// # Answers
//
// Without "stream": true an answer is one chat.completion: one choice
// whose message has the text as content (null without text) and the
// tool calls, finish_reason stop, length (max_tokens) or tool_calls
// (tool_use, also when the model stopped for a tool call and made none:
// the malformed reply), and usage: prompt_tokens (every input token),
// completion_tokens, total_tokens, prompt_tokens_details.cached_tokens
// (read from the prompt cache) and cache_write_tokens (written to it,
// when any). A tool call's arguments are the model's input as it wrote
// it: a truncated reply's cut JSON travels as it is, which is the
// malformed tool call of this API.
//
// With "stream": true it is chat.completion.chunk data lines (see
// [API.Stream]) ending with "data: [DONE]".
//
// # Faults
//
// A failure is the API's error body with the status of [API.StatusOf]'s
// table (429 with retry-after and retry-after-ms, x-request-id on
// every answer to a recorded request). A prompt too long is worded as
// the API words it ("This model's maximum context length is M tokens.
// However, your messages resulted in N tokens. ..."), code
// context_length_exceeded; other faults carry the script's message. The
// API has no error event: a stream that fails after it began ends with
// a data line holding an error object, {"error": {"message", "type":
// "server_error", ...}}, which the official SDKs raise as an error
// (openai-go's ssestream, openai-node and openai-python do the same),
// and no [DONE]. A dropped connection ends the stream (or the request)
// without it; an abort likewise.
//
// # Thinking
//
// The official API sends no reasoning in Chat Completions. A thinking
// block is sent as reasoning_content (in the message, and in deltas),
// the field OpenAI-compatible servers (DeepSeek, vLLM, Qwen's) use and
// Qwen Code and opencode read; the official SDKs keep it in the raw JSON
// and otherwise ignore it. A request's assistant message that carries
// reasoning_content gives a thinking block back.
package chat
