package sdkmodel

import (
	"errors"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/internal/adapter"
)

// Classify says which [loop.ErrorKind] an error of an SDK call is, as the
// package documentation lists; nil means the error is neither an API
// error nor a failed connection. The message is the API's error.message,
// verbatim.
func Classify(err error) *loop.RequestError {
	var aerr *anthropic.Error
	if errors.As(err, &aerr) {
		return classifyAPI(aerr)
	}
	return adapter.Connection(err)
}

// classifyAPI classifies an error the API answered with.
func classifyAPI(aerr *anthropic.Error) *loop.RequestError {
	msg := adapter.Message(aerr.StatusCode, aerr.Message, aerr.RawJSON())
	a := adapter.Answer{Status: aerr.StatusCode, Message: msg,
		PromptTooLong: strings.Contains(strings.ToLower(msg), "prompt is too long"),
		MediaTooLarge: mediaTooLarge(aerr, msg),
		Overloaded:    aerr.StatusCode == 529}
	if aerr.Response != nil {
		a.RetryAfterMS = adapter.RetryAfterMS(aerr.Response.Header)
	}
	return adapter.Classify(a)
}

// mediaTooLarge reports whether a 400 rejects an image or a document for
// its size: the error code says so, or the message says an image, PDF or
// document "exceeds" a maximum.
func mediaTooLarge(aerr *anthropic.Error, msg string) bool {
	if aerr.ErrorCode() == anthropic.ErrorCodeImageDimensionsTooLarge {
		return true
	}
	return adapter.Mentions(msg, []string{"exceed"}, []string{"image", "pdf", "document"})
}
