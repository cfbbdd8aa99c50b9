package responses

import (
	"errors"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/internal/adapter"
)

// Classify says which [loop.ErrorKind] an error of an SDK call is, as
// the package documentation lists; nil means the error is neither an
// API error nor a failed connection. The message is the API's
// error.message, verbatim.
func Classify(err error) *loop.RequestError {
	var aerr *openai.Error
	if errors.As(err, &aerr) {
		return classifyAPI(aerr)
	}
	return adapter.Connection(err)
}

// classifyAPI classifies an error the API answered with.
func classifyAPI(aerr *openai.Error) *loop.RequestError {
	status := aerr.StatusCode
	a := adapter.Answer{Status: status, Message: adapter.Message(status, aerr.Message, aerr.RawJSON()),
		PromptTooLong: aerr.Code == "context_length_exceeded",
		MediaTooLarge: strings.HasSuffix(aerr.Param, "image_url"),
		Overloaded:    status == 529 || status == http.StatusServiceUnavailable && (aerr.Code == "server_is_overloaded" || aerr.Code == "slow_down")}
	if aerr.Response != nil {
		a.RetryAfterMS = adapter.RetryAfterMS(aerr.Response.Header)
	}
	return adapter.Classify(a)
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
