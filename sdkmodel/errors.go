package sdkmodel

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"

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
	return fmt.Errorf("sdkmodel: %w", err)
}

// Classify says which [loop.ErrorKind] an error of an SDK call is, as the
// package documentation lists; nil means the error is neither an API
// error nor a failed connection. The message is the API's error.message,
// verbatim.
func Classify(err error) *loop.RequestError {
	var aerr *anthropic.Error
	if errors.As(err, &aerr) {
		return classifyAPI(aerr)
	}
	if transport.ConnectionFailed(err) {
		return &loop.RequestError{Kind: loop.KindConnection, Message: err.Error()}
	}
	return nil
}

// classifyAPI classifies an error the API answered with.
func classifyAPI(aerr *anthropic.Error) *loop.RequestError {
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
	case status >= 200 && status < 300:
		// an error event in a stream the API had accepted
		re.Kind, re.Status = loop.KindStream, 0
	case status == http.StatusBadRequest && strings.Contains(strings.ToLower(msg), "prompt is too long"):
		re.Kind = loop.KindPromptTooLong
	case status == http.StatusBadRequest && mediaTooLarge(aerr, msg):
		re.Kind = loop.KindMediaTooLarge
	case status == http.StatusBadRequest:
		re.Kind = loop.KindInvalidRequest
	case status == http.StatusRequestEntityTooLarge:
		re.Kind = loop.KindRequestTooLarge
	case status == http.StatusTooManyRequests:
		re.Kind = loop.KindRateLimited
	case status == 529:
		re.Kind = loop.KindOverloaded
	case status >= 500 && status <= 599:
		re.Kind = loop.KindServer
	default:
		re.Kind = loop.KindOther
	}
	return re
}

// mediaTooLarge reports whether a 400 rejects an image or a document for
// its size: the error code says so, or the message says an image, PDF or
// document "exceeds" a maximum.
func mediaTooLarge(aerr *anthropic.Error, msg string) bool {
	if aerr.ErrorCode() == anthropic.ErrorCodeImageDimensionsTooLarge {
		return true
	}
	m := strings.ToLower(msg)
	if !strings.Contains(m, "exceed") {
		return false
	}
	for _, w := range []string{"image", "pdf", "document"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}
