package adapter

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/loopsim/loopsim/loop"
)

// Answer is an error answer as an API's package read it from its SDK's
// error: the status and message, and what the API's own codes and
// wording say.
type Answer struct {
	// Status is the HTTP status; a 2xx is an error in a stream the API
	// had accepted.
	Status int
	// Message is the API's error message.
	Message string
	// RetryAfterMS is the delay the API asked for, 0 when none.
	RetryAfterMS int
	// PromptTooLong: the API says the input is over the model's window
	// (a 400). Tokens and Maximum, when both are positive, are the
	// figures its message gave: the loop's own message is written from
	// them.
	PromptTooLong   bool
	Tokens, Maximum int
	// MediaTooLarge: the API rejects an image or a document for its size
	// (a 400).
	MediaTooLarge bool
	// Overloaded: the API is overloaded (Anthropic's 529; the 503 its
	// code or message says is one).
	Overloaded bool
}

// Classify puts an answer in the loop's terms: the kind, with the
// loop's status for it ([loop.ErrorKind.Status]), so a trace reads the
// same whatever API the loop spoke:
//
//	a 2xx (an error in a stream that had begun)   stream_error, no status
//	400 the API says is prompt too long           prompt_too_long
//	400 the API says rejects media for its size   media_too_large
//	other 400                                     invalid_request
//	413                                           request_too_large
//	429                                           rate_limited
//	the API's overload                            overloaded (529)
//	other 5xx                                     server_error, its status
//	any other status                              other, its status
//
// The retry-after goes with every kind.
func Classify(a Answer) *loop.RequestError {
	re := &loop.RequestError{Status: a.Status, Message: a.Message, RetryAfterMS: a.RetryAfterMS}
	switch s := a.Status; {
	case s >= 200 && s < 300:
		re.Kind = loop.KindStream
	case s == http.StatusBadRequest && a.PromptTooLong && a.Tokens > 0 && a.Maximum > 0:
		ptl := loop.PromptTooLongError(a.Tokens, a.Maximum)
		ptl.RetryAfterMS = a.RetryAfterMS
		return ptl
	case s == http.StatusBadRequest && a.PromptTooLong:
		re.Kind = loop.KindPromptTooLong
	case s == http.StatusBadRequest && a.MediaTooLarge:
		re.Kind = loop.KindMediaTooLarge
	case s == http.StatusBadRequest:
		re.Kind = loop.KindInvalidRequest
	case s == http.StatusRequestEntityTooLarge:
		re.Kind = loop.KindRequestTooLarge
	case s == http.StatusTooManyRequests:
		re.Kind = loop.KindRateLimited
	case a.Overloaded:
		re.Kind = loop.KindOverloaded
	case s >= 500 && s <= 599:
		re.Kind = loop.KindServer
		return re
	default:
		re.Kind = loop.KindOther
		return re
	}
	re.Status = re.Kind.Status()
	return re
}

// Message is an error answer's message: the API's own, else its raw
// body, else the status's text.
func Message(status int, message, raw string) string {
	if message != "" {
		return message
	}
	if raw = strings.TrimSpace(raw); raw != "" {
		return raw
	}
	return http.StatusText(status)
}

// Mentions reports whether msg, in any case, holds one of verbs and one
// of nouns: how an API's message that rejects media for its size is told
// apart ("exceeds" and "image").
func Mentions(msg string, verbs, nouns []string) bool {
	m := strings.ToLower(msg)
	return containsAny(m, verbs) && containsAny(m, nouns)
}

// containsAny reports whether s holds one of words.
func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// Failure is what a failed call returns to the loop: re, the failure
// the API's package classified (nil when it could not), with a
// connection that dropped after events stream events (-1: not a stream)
// marked as one that had begun; else err wrapped.
func (w Wire) Failure(re *loop.RequestError, err error, events int) error {
	if re == nil {
		return fmt.Errorf("%s: %w", w.Pkg, err)
	}
	if re.Kind == loop.KindConnection && events > 0 {
		re.Message = fmt.Sprintf("the connection dropped after %d stream %ss: %s", events, w.Unit, re.Message)
		re.Status = loop.StatusStreamBegun
	}
	return re
}

// Connection is err as a failed connection, nil when it is not one
// ([ConnectionFailed]).
func Connection(err error) *loop.RequestError {
	if !ConnectionFailed(err) {
		return nil
	}
	return &loop.RequestError{Kind: loop.KindConnection, Message: err.Error()}
}
