package responses

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/internal/transport"
)

// failure turns an error of a call into what the loop's seam returns: a
// [*loop.RequestError] when [Classify] knows it, else the error wrapped.
// events is how many stream events arrived before it (-1: not a stream).
func failure(err error, events int) error {
	if re := Classify(err); re != nil {
		if re.Kind == loop.KindConnection && events > 0 {
			re.Message = fmt.Sprintf("the connection dropped after %d stream events: %s", events, re.Message)
			re.Status = loop.StatusStreamBegun
		}
		return re
	}
	return fmt.Errorf("sdkmodel/responses: %w", err)
}

// Classify says which [loop.ErrorKind] an error of an SDK call is, as
// the package documentation lists; nil means the error is neither an
// API error nor a failed connection. The message is the API's
// error.message, verbatim.
func Classify(err error) *loop.RequestError {
	var aerr *openai.Error
	if errors.As(err, &aerr) {
		return classifyAPI(aerr)
	}
	if transport.ConnectionFailed(err) {
		return &loop.RequestError{Kind: loop.KindConnection, Message: err.Error()}
	}
	return nil
}

// classifyAPI classifies an error the API answered with.
func classifyAPI(aerr *openai.Error) *loop.RequestError {
	msg := aerr.Message
	if msg == "" {
		msg = strings.TrimSpace(aerr.RawJSON())
	}
	if msg == "" {
		msg = http.StatusText(aerr.StatusCode)
	}
	status := aerr.StatusCode
	re := &loop.RequestError{Status: status, Message: msg}
	if aerr.Response != nil {
		re.RetryAfterMS = transport.RetryAfterMS(aerr.Response.Header)
	}
	switch {
	case status == http.StatusBadRequest && aerr.Code == "context_length_exceeded":
		re.Kind = loop.KindPromptTooLong
	case status == http.StatusBadRequest && strings.HasSuffix(aerr.Param, "image_url"):
		re.Kind = loop.KindMediaTooLarge
	case status == http.StatusBadRequest:
		re.Kind = loop.KindInvalidRequest
	case status == http.StatusRequestEntityTooLarge:
		re.Kind = loop.KindRequestTooLarge
	case status == http.StatusTooManyRequests:
		re.Kind = loop.KindRateLimited
	case status == 529 || status == http.StatusServiceUnavailable && (aerr.Code == "server_is_overloaded" || aerr.Code == "slow_down"):
		re.Kind = loop.KindOverloaded
	case status >= 500 && status <= 599:
		re.Kind = loop.KindServer
	default:
		re.Kind = loop.KindOther
	}
	if re.Kind == loop.KindOverloaded {
		// the loop's status for an overload, whatever the API answered it with (503)
		re.Status = re.Kind.Status()
	}
	return re
}

// failed is the failure a response.failed (or a failed response) says:
// its error's code decides the kind.
func failed(r *responses.Response) *loop.RequestError {
	msg := r.Error.Message
	if msg == "" {
		msg = "response.failed without an error message"
	}
	re := &loop.RequestError{Kind: loop.KindStream, Message: msg}
	switch string(r.Error.Code) {
	case "context_length_exceeded":
		re.Kind = loop.KindPromptTooLong
	case "server_is_overloaded", "slow_down":
		re.Kind = loop.KindOverloaded
	case "rate_limit_exceeded":
		re.Kind = loop.KindRateLimited
	}
	re.Status = re.Kind.Status()
	return re
}
