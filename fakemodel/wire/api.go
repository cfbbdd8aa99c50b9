package wire

import (
	"net/http"

	"github.com/loopsim/loopsim/loop"
)

// API is one wire protocol the fake server speaks: which requests are
// its own, how it reads them and how it writes the answers. Everything
// else is the core's ([Handler]): the body limit, the model call under
// one lock, the records, the pauses of a slow stream, dropped
// connections and aborts. Each API lives in its own package beside this
// one (messages, chat, responses, gemini).
//
// An API is plain data and pure functions: it holds no state between
// requests and is safe for concurrent use.
type API interface {
	// Name is the API's name as records and the fault table carry it:
	// "messages", "chat", "responses", "gemini".
	Name() string

	// Route tells whether r is for one of this API's endpoints, and
	// which. The core tries the APIs in order and answers 404 when none
	// takes the request, 405 when the route's Methods do not include
	// r.Method.
	Route(r *http.Request) (Route, bool)

	// Decode reads a request body for rt and checks it as the API checks
	// it. A body the API refuses returns a [*Rejection] (the API's status,
	// error type and message, naming the field in the API's words) and
	// whatever could be read: nil when nothing could, else a Decoded whose
	// Request carries at least what was read (model, output cap, and the
	// messages when every message could be read), so the record shows it.
	Decode(rt Route, body []byte, opts DecodeOptions) (*Decoded, error)

	// Reply is a successful non-streaming answer ([OutcomeReply]) as the
	// API's JSON body.
	Reply(d *Decoded, a *Answer) any

	// Stream writes a streamed answer through s, after the core has sent
	// the status and the event-stream headers: the opening events, every
	// block of a.Blocks, and the events that end the stream for
	// a.Outcome: a reply's closing events (stop reason, usage); for
	// [OutcomeError] the API's error event for a.Err (or, where the API
	// has no error event, nothing: the core closes the stream without
	// its final event); nothing more for [OutcomeDrop] and
	// [OutcomeAbort] (the core then drops the connection or plays the
	// abort).
	Stream(s *Stream, d *Decoded, a *Answer)

	// Error is the API's error answer for f: the status, the headers
	// beyond Content-Type (retry-after and the like) and the JSON body.
	Error(f *Failure) ErrorAnswer

	// StatusOf is how the API answers a failure of e's kind outside a
	// stream: its HTTP status and error type or code. It is the API's
	// column of the fault table.
	StatusOf(e *loop.RequestError) Status

	// Count is the body of a token-count answer ([EndpointCount]): the
	// request's size as the server estimates it (d.Request.InputTokens).
	Count(d *Decoded) any
}

// Endpoint is what a request asks of an API.
type Endpoint int

const (
	// EndpointGenerate is a model call: a Messages request, a chat
	// completion, a response, a generateContent call.
	EndpointGenerate Endpoint = iota
	// EndpointCompact is a model call whose purpose is compaction by the
	// endpoint itself (the Responses API's /v1/responses/compact).
	EndpointCompact
	// EndpointCount is a token count: answered from the server's
	// estimate, not recorded, and it consumes no step.
	EndpointCount
)

// Route is a request's endpoint, and what its URL says of it.
type Route struct {
	// Endpoint is what the request asks.
	Endpoint Endpoint
	// Methods are the HTTP methods the endpoint takes; empty means POST.
	Methods []string
	// Stream is set when the URL asks for a stream (Gemini's
	// :streamGenerateContent); an API whose body says it sets
	// Decoded.Stream from the body instead.
	Stream bool
	// Model is the model named in the URL (Gemini's
	// /v1beta/models/{model}:generateContent), empty otherwise.
	Model string
}

// DecodeOptions are what Decode checks a request against.
type DecodeOptions struct {
	// Models are the known models: a request whose output cap is over
	// its model's MaxOutputTokens is refused as the API refuses it.
	// Requests for other models are not checked.
	Models []loop.ModelInfo
}

// Decoded is a request read from any API into the loop's terms.
type Decoded struct {
	// Request is what the model is asked: Purpose by the API's documented
	// rule (see [PurposeOf]), Messages converted block by block (tool
	// calls as tool_use blocks, their results as tool_result blocks),
	// InputTokens the server's estimate (see [Estimate]) or the client's
	// own count ([InputTokensHeader]), Tools the tool names, MaxTokens the
	// output cap (0 when the request sets none), NonStreaming for a
	// request that did not ask for a stream.
	Request loop.Request
	// Stream is whether the answer is streamed.
	Stream bool
	// SystemTokens is the estimated size of the system prompt (or
	// instructions) and the tool definitions: what a request carries
	// besides its messages.
	SystemTokens int
	// Shapes is each message's shape (see [Shape]).
	Shapes []string
	// Hashes identify each message's content as the API sent it (see
	// [HashMessage]), to tell what a later request kept and appended.
	Hashes []uint64
	// Extra is what Decode read that only the API's own answers use
	// (Chat's stream_options.include_usage); the core carries it to
	// Reply and Stream untouched.
	Extra any
}

// CutOpen is implemented by a model's failure that came inside a block
// (fakemodel.CutError): CutBlock is that block as far as it was streamed.
type CutOpen interface {
	CutBlock() loop.Block
}

// Outcome is how the model answered one request.
type Outcome int

const (
	// OutcomeReply is a response: Blocks, then Response.
	OutcomeReply Outcome = iota
	// OutcomeError is an API error (Err), after Blocks when there are
	// any.
	OutcomeError
	// OutcomeDrop is a dropped connection, after Blocks when there are
	// any.
	OutcomeDrop
	// OutcomeAbort is the user's abort: Blocks, then Options.OnAbort.
	OutcomeAbort
	// OutcomeFault is a harness fault (the script ran out): a 500 with
	// its message.
	OutcomeFault
	// OutcomeGone is a client that went away during the model call:
	// nothing is written.
	OutcomeGone
)

// Answer is one model call's result, ready to be written.
type Answer struct {
	// Seq is the request's number in the records, from 1.
	Seq int
	// Outcome is how the model answered.
	Outcome Outcome
	// Blocks are the content blocks the model produced.
	Blocks []loop.Block
	// Cut, on a failure (OutcomeError, OutcomeDrop), is a block the
	// stream was cut inside of, after Blocks: a streamed answer sends its
	// start and its text so far, never its end. Nil when the failure came
	// between blocks.
	Cut *loop.Block
	// Response is the reply's stop reason and usage (OutcomeReply).
	Response loop.Response
	// Err is the failure the model played (OutcomeError, OutcomeDrop).
	Err *loop.RequestError
	// Fault is the harness's own failure (OutcomeFault).
	Fault error
}

// Rejection is a request the API refuses before the model sees it: its
// status (400 unless set), error type or code, and message in the API's
// words.
type Rejection struct {
	// Status is the HTTP status; 0 means 400.
	Status int
	// Type is the API's error type ("invalid_request_error",
	// "INVALID_ARGUMENT", ...); empty means the API's type for a 400.
	Type string
	// Param is the offending field, for APIs whose error body names it
	// (OpenAI's "param").
	Param string
	// Code is the API's error code besides the type, for APIs whose
	// error body carries one (OpenAI's "code": "invalid_type",
	// "missing_required_parameter"); empty otherwise.
	Code string
	// Message is the API's message.
	Message string
}

// Error implements error: the message.
func (r *Rejection) Error() string { return r.Message }

// Failure is an error answer for an API to write: a fault the model
// played (Err), a request the API refused (Rejection), or the server's
// own (Status and Message: not found, method not allowed, body too
// large, harness fault, shutting down).
type Failure struct {
	// Err is the fault the model played, nil otherwise.
	Err *loop.RequestError
	// Rejection is the refusal Decode returned, nil otherwise.
	Rejection *Rejection
	// Status and Message are the server's own failure when Err and
	// Rejection are nil.
	Status  int
	Message string
	// RequestID is the request's id, for the API's request-id header or
	// body field; empty when the request was not recorded.
	RequestID string
}

// ErrorAnswer is an error as an API writes it.
type ErrorAnswer struct {
	// Status is the HTTP status.
	Status int
	// Header holds the headers to set besides Content-Type.
	Header http.Header
	// Body is the JSON body.
	Body any
}

// Status is how an API answers one kind of failure outside a stream.
type Status struct {
	// HTTP is the status code.
	HTTP int
	// Type is the API's error type ("rate_limit_error", "RESOURCE_EXHAUSTED").
	Type string
	// Code is the API's error code where it has one besides the type
	// ("context_length_exceeded"); empty otherwise.
	Code string
}

// ClientEnv is implemented by an API whose clients find the server
// through environment variables (its SDKs' and agents' base-URL
// variable): the variables, "NAME=value", that point a client of the API
// at a server whose base URL is base (as [Server.URL] gives it), and
// give it a dummy key (the server takes any key; a real one must never
// reach it). `simulate serve` prints them and `simulate agent` sets them.
type ClientEnv interface {
	// ClientEnv is the variables for a server at base.
	ClientEnv(base string) []string
}
