package messages

import (
	"net/http"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// The API's error types.
const (
	InvalidRequestError = "invalid_request_error"
	AuthenticationError = "authentication_error"
	PermissionError     = "permission_error"
	NotFoundError       = "not_found_error"
	RequestTooLarge     = "request_too_large"
	RateLimitError      = "rate_limit_error"
	APIError            = "api_error"
	OverloadedError     = "overloaded_error"
)

// StatusOf is the HTTP status and API error type the server answers a
// failure of e's kind with (its column of the fault table):
//
//	prompt_too_long, media_too_large, invalid_request, image_size  400 invalid_request_error
//	request_too_large                                              413 request_too_large
//	rate_limited                                                   429 rate_limit_error
//	server_error                                                   its status (500) api_error
//	overloaded, fallback_triggered                                 529 overloaded_error
//	other                                                          its status, the type that status has
//	stream_error                                                   an error event (api_error) in a stream; 500 api_error for a non-streaming request
//
// A connection kind is not a status: the server drops the connection.
// image_size is a check the client makes before sending; over the wire
// it can only be the API's rejection of the image.
func (API) StatusOf(e *loop.RequestError) wire.Status {
	return statusOf(e)
}

func statusOf(e *loop.RequestError) wire.Status {
	status, typ := kindStatus(e)
	return wire.Status{HTTP: status, Type: typ}
}

// kindStatus is the kind's status ([loop.ErrorKind.Status], the table
// the in-process fakes use) with the type that status has, but where the
// wire differs: image_size is the API's 400, a server error and an other
// keep their own status when it is one of theirs, and a kind with no
// status (a stream error answered whole, ...) is a 500 api_error.
func kindStatus(e *loop.RequestError) (int, string) {
	status := e.Kind.Status()
	switch e.Kind {
	case loop.KindImageSize:
		status = loop.KindInvalidRequest.Status()
	case loop.KindServer:
		if e.Status >= 500 && e.Status <= 599 {
			status = e.Status
		}
	case loop.KindOther:
		if e.Status >= 400 && e.Status <= 599 {
			status = e.Status
		}
	}
	if status == 0 {
		return http.StatusInternalServerError, APIError
	}
	return status, typeOfStatus(status)
}

// typeOfStatus is the API error type a status carries.
func typeOfStatus(status int) string {
	switch status {
	case 400:
		return InvalidRequestError
	case 401:
		return AuthenticationError
	case 403:
		return PermissionError
	case 404:
		return NotFoundError
	case 413:
		return RequestTooLarge
	case 429:
		return RateLimitError
	case 529:
		return OverloadedError
	}
	return APIError
}

// errorBody is the API's JSON error body.
type errorBody struct {
	Type      string      `json:"type"`
	Error     errorDetail `json:"error"`
	RequestID string      `json:"request_id,omitempty"`
}

type errorDetail struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func newErrorBody(typ, msg, requestID string) errorBody {
	return errorBody{Type: "error", Error: errorDetail{Type: typ, Message: msg}, RequestID: requestID}
}

// Error is the API's error answer: the status, retry-after and
// retry-after-ms for a fault that sets a delay, and the body
// {"type":"error","error":{"type":...,"message":...},"request_id":...}.
// The server's own failures take the type of their status (405:
// invalid_request_error).
func (API) Error(f *wire.Failure) wire.ErrorAnswer {
	switch {
	case f.Err != nil:
		st := statusOf(f.Err)
		return wire.ErrorAnswer{Status: st.HTTP, Header: wire.RetryAfter(f.Err), Body: newErrorBody(st.Type, f.Err.Message, f.RequestID)}
	case f.Rejection != nil:
		status, typ := f.Rejection.Status, f.Rejection.Type
		if status == 0 {
			status = http.StatusBadRequest
		}
		if typ == "" {
			typ = typeOfStatus(status)
		}
		return wire.ErrorAnswer{Status: status, Body: newErrorBody(typ, f.Rejection.Message, f.RequestID)}
	}
	typ := typeOfStatus(f.Status)
	if f.Status == http.StatusMethodNotAllowed {
		typ = InvalidRequestError
	}
	return wire.ErrorAnswer{Status: f.Status, Body: newErrorBody(typ, f.Message, f.RequestID)}
}
