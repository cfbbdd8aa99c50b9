package gemini

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// The API's error statuses (google.rpc.Code names) the server answers
// with.
const (
	InvalidArgument    = "INVALID_ARGUMENT"
	Unauthenticated    = "UNAUTHENTICATED"
	PermissionDenied   = "PERMISSION_DENIED"
	NotFound           = "NOT_FOUND"
	Aborted            = "ABORTED"
	FailedPrecondition = "FAILED_PRECONDITION"
	ResourceExhausted  = "RESOURCE_EXHAUSTED"
	Cancelled          = "CANCELLED"
	Internal           = "INTERNAL"
	Unimplemented      = "UNIMPLEMENTED"
	Unavailable        = "UNAVAILABLE"
	DeadlineExceeded   = "DEADLINE_EXCEEDED"
	Unknown            = "UNKNOWN"
)

// RetryInfoType is the type of the error detail that carries a retry
// delay.
const RetryInfoType = "type.googleapis.com/google.rpc.RetryInfo"

// StatusOf implements [wire.API]: the HTTP status and status name the
// server answers a failure of this kind with, Gemini's column of the
// fault table:
//
//	prompt_too_long, invalid_request, media_too_large, image_size  400 INVALID_ARGUMENT
//	request_too_large                                              413 INVALID_ARGUMENT
//	rate_limited                                                   429 RESOURCE_EXHAUSTED (a RetryInfo detail with the retry-after)
//	overloaded, fallback_triggered                                 503 UNAVAILABLE
//	server_error                                                   its status (500), that status's name
//	other                                                          its status, that status's name
//	stream_error                                                   an error chunk (500 INTERNAL) in a stream; 500 INTERNAL otherwise
//
// The API has no 413 of its own (its front end refuses a body over its
// limit); the server answers 413 with INVALID_ARGUMENT, the status the
// API gives a payload over its size limit. A connection kind is not a
// status: the server drops the connection.
func (API) StatusOf(e *loop.RequestError) wire.Status {
	code := http.StatusInternalServerError
	switch e.Kind {
	case loop.KindPromptTooLong, loop.KindMediaTooLarge, loop.KindInvalidRequest, loop.KindImageSize:
		code = http.StatusBadRequest
	case loop.KindRequestTooLarge:
		return wire.Status{HTTP: http.StatusRequestEntityTooLarge, Type: InvalidArgument}
	case loop.KindRateLimited:
		code = http.StatusTooManyRequests
	case loop.KindOverloaded, loop.KindFallbackTriggered:
		code = http.StatusServiceUnavailable
	case loop.KindServer:
		if e.Status >= 500 && e.Status <= 599 {
			code = e.Status
		}
	case loop.KindOther:
		if e.Status >= 400 && e.Status <= 599 {
			code = e.Status
		}
	}
	return wire.Status{HTTP: code, Type: statusName(code)}
}

// statusName is the google.rpc.Code name an HTTP status carries.
func statusName(code int) string {
	switch code {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		return InvalidArgument
	case http.StatusUnauthorized:
		return Unauthenticated
	case http.StatusForbidden:
		return PermissionDenied
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		return NotFound
	case http.StatusConflict:
		return Aborted
	case http.StatusPreconditionFailed:
		return FailedPrecondition
	case http.StatusTooManyRequests:
		return ResourceExhausted
	case 499:
		return Cancelled
	case http.StatusNotImplemented:
		return Unimplemented
	case http.StatusServiceUnavailable, http.StatusBadGateway:
		return Unavailable
	case http.StatusGatewayTimeout:
		return DeadlineExceeded
	}
	if code >= 500 {
		return Internal
	}
	return Unknown
}

// errorBody is the API's error body.
type errorBody struct {
	Error errorStatus `json:"error"`
}

// errorStatus is a google.rpc.Status as the API writes it.
type errorStatus struct {
	Code    int              `json:"code"`
	Message string           `json:"message"`
	Status  string           `json:"status"`
	Details []map[string]any `json:"details,omitempty"`
}

// Error implements [wire.API]: {"error":{"code":...,"message":...,
// "status":...}}, with a google.rpc.RetryInfo detail (retryDelay, in
// seconds) when the fault carries a retry-after. The API sends no
// retry-after header.
func (a API) Error(f *wire.Failure) wire.ErrorAnswer {
	var st errorStatus
	switch {
	case f.Err != nil:
		s := a.StatusOf(f.Err)
		st = errorStatus{Code: s.HTTP, Status: s.Type, Message: message(f.Err)}
		if f.Err.RetryAfterMS > 0 {
			st.Details = []map[string]any{{"@type": RetryInfoType, "retryDelay": RetryDelay(f.Err.RetryAfterMS)}}
		}
	case f.Rejection != nil:
		code := f.Rejection.Status
		if code == 0 {
			code = http.StatusBadRequest
		}
		st = errorStatus{Code: code, Status: f.Rejection.Type, Message: f.Rejection.Message}
		if st.Status == "" {
			st.Status = statusName(code)
		}
	default:
		st = errorStatus{Code: f.Status, Status: statusName(f.Status), Message: f.Message}
	}
	return wire.ErrorAnswer{Status: st.Code, Body: errorBody{Error: st}}
}

// RetryDelay is a retry-after of ms milliseconds as a RetryInfo's
// retryDelay (a google.protobuf.Duration in JSON): "3s", "1.500s".
func RetryDelay(ms int) string {
	if ms%1000 == 0 {
		return strconv.Itoa(ms/1000) + "s"
	}
	return fmt.Sprintf("%d.%03ds", ms/1000, ms%1000)
}

// message is a fault's message in the API's words: a prompt too long
// reads as Gemini says it ("The input token count (N) exceeds the
// maximum number of tokens allowed (M)."); others are the fault's own.
func message(e *loop.RequestError) string {
	var n, m int
	if e.Kind == loop.KindPromptTooLong {
		if k, _ := fmt.Sscanf(e.Message, "prompt is too long: %d tokens > %d maximum", &n, &m); k == 2 {
			return PromptTooLongMessage(n, m)
		}
	}
	return e.Message
}

// PromptTooLongMessage is the API's message for a prompt of n tokens
// over the model's input limit of m.
func PromptTooLongMessage(n, m int) string {
	return fmt.Sprintf("The input token count (%d) exceeds the maximum number of tokens allowed (%d).", n, m)
}
