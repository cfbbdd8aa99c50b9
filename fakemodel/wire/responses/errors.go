package responses

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// The API's error types and codes the fake sends.
const (
	InvalidRequestError     = "invalid_request_error"
	ServerError             = "server_error"
	ServiceUnavailableError = "service_unavailable_error"
	// RateLimitType is the type of a 429: the limit that ran out (the API
	// says "tokens" or "requests").
	RateLimitType = "tokens"

	CodeContextLengthExceeded  = "context_length_exceeded"
	CodeRateLimitExceeded      = "rate_limit_exceeded"
	CodeServerIsOverloaded     = "server_is_overloaded"
	CodeServerError            = "server_error"
	CodeRequestTooLarge        = "request_too_large"
	CodeInvalidValue           = "invalid_value"
	CodeInvalidType            = "invalid_type"
	CodeMissingParameter       = "missing_required_parameter"
	CodeBelowMinimum           = "integer_below_min_value"
	CodeAboveMaximum           = "integer_above_max_value"
	CodePreviousResponseAbsent = "previous_response_not_found"
)

// MinOutputTokens is the least max_output_tokens the API takes.
const MinOutputTokens = 16

// ImageParam is the param of a media_too_large answer: Codex (and the
// API) name the offending image_url, and a client tells an image
// rejection by it.
const ImageParam = "input.content.image_url"

// StatusOf is how the API answers a failure of e's kind outside a
// stream (HTTP status, error type, code):
//
//	prompt_too_long                   400 invalid_request_error context_length_exceeded
//	media_too_large, image_size       400 invalid_request_error invalid_value (param input.content.image_url)
//	invalid_request                   400 invalid_request_error
//	request_too_large                 413 invalid_request_error request_too_large
//	rate_limited                      429 tokens rate_limit_exceeded (retry-after, retry-after-ms)
//	overloaded, fallback_triggered    503 service_unavailable_error server_is_overloaded
//	server_error                      its status (500) server_error
//	other                             its status, the type that status has
//	stream_error                      500 server_error for a request that did not stream
//
// In a stream the code travels in response.failed (see the package
// documentation); a connection kind is not a status: the server drops
// the connection.
func (API) StatusOf(e *loop.RequestError) wire.Status {
	switch e.Kind {
	case loop.KindPromptTooLong:
		return wire.Status{HTTP: 400, Type: InvalidRequestError, Code: CodeContextLengthExceeded}
	case loop.KindMediaTooLarge, loop.KindImageSize:
		return wire.Status{HTTP: 400, Type: InvalidRequestError, Code: CodeInvalidValue}
	case loop.KindInvalidRequest:
		return wire.Status{HTTP: 400, Type: InvalidRequestError}
	case loop.KindRequestTooLarge:
		return wire.Status{HTTP: 413, Type: InvalidRequestError, Code: CodeRequestTooLarge}
	case loop.KindRateLimited:
		return wire.Status{HTTP: 429, Type: RateLimitType, Code: CodeRateLimitExceeded}
	case loop.KindOverloaded, loop.KindFallbackTriggered:
		return wire.Status{HTTP: 503, Type: ServiceUnavailableError, Code: CodeServerIsOverloaded}
	case loop.KindServer:
		if e.Status >= 500 && e.Status <= 599 {
			return wire.Status{HTTP: e.Status, Type: typeOfStatus(e.Status)}
		}
	case loop.KindOther:
		if e.Status >= 400 && e.Status <= 599 {
			return wire.Status{HTTP: e.Status, Type: typeOfStatus(e.Status)}
		}
	}
	return wire.Status{HTTP: 500, Type: ServerError}
}

// typeOfStatus is the error type the API gives a status.
func typeOfStatus(status int) string {
	switch status {
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 429:
		return RateLimitType
	case 503:
		return ServiceUnavailableError
	}
	if status >= 500 {
		return ServerError
	}
	return InvalidRequestError
}

// streamCode is the code a failure carries in response.failed: its
// code outside a stream, else server_error.
func (a API) streamCode(e *loop.RequestError) string {
	if c := a.StatusOf(e).Code; c != "" {
		return c
	}
	return CodeServerError
}

// errorDetail is the API's error object, in an error body and in a
// failed response.
type errorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// errorBody is the API's JSON error body.
type errorBody struct {
	Error errorDetail `json:"error"`
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Error is the API's error answer for f: status and, for a rate limit, retry-after (whole seconds, rounded up) and
// retry-after-ms.
func (a API) Error(f *wire.Failure) wire.ErrorAnswer {
	h := http.Header{}
	var d errorDetail
	status := f.Status
	switch {
	case f.Err != nil:
		st := a.StatusOf(f.Err)
		status = st.HTTP
		d = errorDetail{Message: f.Err.Message, Type: st.Type, Code: orNull(st.Code)}
		if f.Err.Kind == loop.KindMediaTooLarge || f.Err.Kind == loop.KindImageSize {
			d.Param = orNull(ImageParam)
		}
		if ms := f.Err.RetryAfterMS; ms > 0 {
			h.Set("retry-after", strconv.Itoa((ms+999)/1000))
			h.Set("retry-after-ms", strconv.Itoa(ms))
		}
	case f.Rejection != nil:
		r := f.Rejection
		status = r.Status
		if status == 0 {
			status = http.StatusBadRequest
		}
		typ := r.Type
		if typ == "" {
			typ = typeOfStatus(status)
		}
		d = errorDetail{Message: r.Message, Type: typ, Param: orNull(r.Param), Code: orNull(r.Code)}
	default:
		if status == 0 {
			status = http.StatusInternalServerError
		}
		d = errorDetail{Message: f.Message, Type: typeOfStatus(status)}
		if status == http.StatusRequestEntityTooLarge {
			d.Code = orNull(CodeRequestTooLarge)
		}
	}
	if d.Message == "" {
		d.Message = http.StatusText(status)
	}
	return wire.ErrorAnswer{Status: status, Header: h, Body: errorBody{Error: d}}
}

// rejection is a 400 invalid_request_error naming param, with code.
func rejection(param, code, format string, args ...any) *wire.Rejection {
	return &wire.Rejection{Type: InvalidRequestError, Param: param, Code: code, Message: fmt.Sprintf(format, args...)}
}

// StreamsError implements [wire.ErrorStreamer]: a prompt too long on a
// streamed request is sent as a stream (response.created, then
// response.failed with code context_length_exceeded), as the API reports
// a context overflow and as Codex reads one; every other failure before
// content is an error status.
func (API) StreamsError(e *loop.RequestError) bool {
	return e.Kind == loop.KindPromptTooLong
}
