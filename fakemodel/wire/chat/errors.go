package chat

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// The API's error types.
const (
	// InvalidRequestError is the type of every 4xx but 429.
	InvalidRequestError = "invalid_request_error"
	// RateLimitType is a 429's type: the limit that was reached, requests
	// (the API also says "tokens" for a token limit).
	RateLimitType = "requests"
	// ServerError is the type of every 5xx and of an error in a stream.
	ServerError = "server_error"
)

// RequestIDHeader is the header that carries a request's id.
const RequestIDHeader = "x-request-id"

// IDHeader implements [wire.IDHeader]: the core names every answer to a
// recorded request in x-request-id.
func (API) IDHeader() string { return RequestIDHeader }

// StatusOf implements [wire.API]: how the API answers a failure of e's
// kind outside a stream, its column of the fault table:
//
//	prompt_too_long                          400 invalid_request_error  context_length_exceeded
//	media_too_large, image_size,
//	invalid_request                          400 invalid_request_error
//	request_too_large                        413 invalid_request_error  request_too_large
//	rate_limited                             429 requests               rate_limit_exceeded (retry-after, retry-after-ms)
//	overloaded, fallback_triggered           503 server_error           server_overloaded
//	server_error                             its 5xx status (500)       server_error
//	other                                    its status; 4xx invalid_request_error, 5xx server_error
//	stream_error                             500 server_error (in a stream: an error data line)
//
// OpenAI has no 529: it answers an overload with 503, which its SDKs
// retry as any 5xx, so the code server_overloaded tells it from other
// 503s. A connection kind is not a status: the core drops the
// connection.
func (API) StatusOf(e *loop.RequestError) wire.Status {
	switch e.Kind {
	case loop.KindPromptTooLong:
		return wire.Status{HTTP: 400, Type: InvalidRequestError, Code: codeContextTooLong}
	case loop.KindMediaTooLarge, loop.KindImageSize, loop.KindInvalidRequest:
		return wire.Status{HTTP: 400, Type: InvalidRequestError}
	case loop.KindRequestTooLarge:
		return wire.Status{HTTP: 413, Type: InvalidRequestError, Code: codeRequestTooLarge}
	case loop.KindRateLimited:
		return wire.Status{HTTP: 429, Type: RateLimitType, Code: codeRateLimited}
	case loop.KindOverloaded, loop.KindFallbackTriggered:
		return wire.Status{HTTP: 503, Type: ServerError, Code: codeServerOverload}
	case loop.KindServer:
		if e.Status >= 500 && e.Status <= 599 {
			return wire.Status{HTTP: e.Status, Type: ServerError}
		}
	case loop.KindOther:
		if e.Status >= 400 && e.Status <= 599 {
			return wire.Status{HTTP: e.Status, Type: typeOfStatus(e.Status)}
		}
	}
	return wire.Status{HTTP: 500, Type: ServerError}
}

// typeOfStatus is the error type a status carries.
func typeOfStatus(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return RateLimitType
	case status >= 500:
		return ServerError
	}
	return InvalidRequestError
}

// errorBody is the API's error body, {"error": {...}}; it is also the
// payload of an error data line in a stream.
type errorBody struct {
	Error errorDetail `json:"error"`
}

// errorDetail is the API's error object: param and code are null when
// the error has none.
type errorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func newErrorBody(typ, code, param, msg string) errorBody {
	d := errorDetail{Message: msg, Type: typ}
	if param != "" {
		d.Param = &param
	}
	if code != "" {
		d.Code = &code
	}
	return errorBody{Error: d}
}

// Error implements [wire.API]: the status, headers and body of f. A
// 429 carries retry-after (whole seconds, rounded up) and
// retry-after-ms from the fault's RetryAfterMS.
func (a API) Error(f *wire.Failure) wire.ErrorAnswer {
	h := http.Header{}
	switch {
	case f.Err != nil:
		st := a.StatusOf(f.Err)
		if ms := f.Err.RetryAfterMS; ms > 0 {
			h.Set("retry-after", strconv.Itoa((ms+999)/1000))
			h.Set("retry-after-ms", strconv.Itoa(ms))
		}
		return wire.ErrorAnswer{Status: st.HTTP, Header: h, Body: newErrorBody(st.Type, st.Code, "", message(f.Err))}
	case f.Rejection != nil:
		r := f.Rejection
		status, typ := r.Status, r.Type
		if status == 0 {
			status = http.StatusBadRequest
		}
		if typ == "" {
			typ = typeOfStatus(status)
		}
		return wire.ErrorAnswer{Status: status, Header: h, Body: newErrorBody(typ, r.Code, r.Param, r.Message)}
	}
	status := f.Status
	if status < 400 || status > 599 {
		status = http.StatusInternalServerError
	}
	return wire.ErrorAnswer{Status: status, Header: h, Body: newErrorBody(typeOfStatus(status), "", "", f.Message)}
}

// message is a fault's message as the API words it: a prompt too long
// in OpenAI's words, with the counts of the loop's message; any other
// fault's message as the script wrote it.
func message(e *loop.RequestError) string {
	if e.Kind != loop.KindPromptTooLong {
		return e.Message
	}
	var tokens, maximum int
	if n, _ := fmt.Sscanf(e.Message, "prompt is too long: %d tokens > %d maximum", &tokens, &maximum); n != 2 {
		return e.Message
	}
	return ContextLengthMessage(tokens, maximum)
}

// ContextLengthMessage is the API's context_length_exceeded message for
// a request of tokens over a model's maximum.
func ContextLengthMessage(tokens, maximum int) string {
	return fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. "+
		"Please reduce the length of the messages.", maximum, tokens)
}
