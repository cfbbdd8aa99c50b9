package loop

import (
	"context"
	"errors"
	"fmt"
)

// StopReason is why the model stopped a response.
type StopReason string

// The stop reasons the loop distinguishes.
const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
)

// Purpose says what a request is for.
type Purpose string

// Request purposes.
const (
	// PurposeMain is an ordinary iteration's request.
	PurposeMain Purpose = "main"
	// PurposeCompact is a compaction's summarise request.
	PurposeCompact Purpose = "compact"
)

// Request is one call to the model.
type Request struct {
	// Purpose says whether this is a main or a compaction request.
	Purpose Purpose `json:"purpose"`
	// Model is the model name.
	Model string `json:"model"`
	// MaxTokens is the output cap.
	MaxTokens int `json:"max_tokens"`
	// Messages are sent in order. They are the loop's own history, valid
	// only during the call: a model must not modify them, and must copy
	// them to keep them (the loop replaces entries in place later, e.g.
	// when microcompact clears old tool results).
	Messages []Message `json:"-"`
	// InputTokens is the loop's own count of the request's size.
	InputTokens int `json:"input_tokens"`
	// Tools are the tool names offered.
	Tools []string `json:"tools,omitempty"`
	// NonStreaming marks the non-streaming retry of a failed stream.
	NonStreaming bool `json:"non_streaming,omitempty"`
}

// Response is how a successful call ended.
type Response struct {
	StopReason StopReason `json:"stop_reason"`
	Usage      Usage      `json:"usage"`
}

// Model is the model seam: one streaming call. It hands each content block
// to yield as it arrives, then returns how the response ended, or fails
// (possibly after yielding some blocks). Failures the loop knows how to
// handle are [*RequestError]; any other error is a harness fault and ends
// the run with an error. A cancelled ctx must make Stream return promptly:
// a Stream still running [Config.CancelGrace] after ctx is done is
// abandoned and Run fails with a [*StuckError].
type Model interface {
	Stream(ctx context.Context, req Request, yield func(Block)) (Response, error)
}

// ErrorKind classifies a failed request.
type ErrorKind string

// The failures the loop and its retry layer tell apart.
const (
	// KindPromptTooLong: 400 "prompt is too long: N tokens > M maximum".
	KindPromptTooLong ErrorKind = "prompt_too_long"
	// KindRequestTooLarge: 413 request too large.
	KindRequestTooLarge ErrorKind = "request_too_large"
	// KindMediaTooLarge: the API rejected an image or document as too
	// large (withheld; reactive compaction may strip it).
	KindMediaTooLarge ErrorKind = "media_too_large"
	// KindImageSize: an image failed the size check before it was sent
	// (image_error at once).
	KindImageSize ErrorKind = "image_size"
	// KindFallbackTriggered: repeated overload; switch to the fallback model.
	KindFallbackTriggered ErrorKind = "fallback_triggered"
	// KindOverloaded: 529.
	KindOverloaded ErrorKind = "overloaded"
	// KindRateLimited: 429.
	KindRateLimited ErrorKind = "rate_limited"
	// KindServer: 500 and other 5xx.
	KindServer ErrorKind = "server_error"
	// KindConnection: the connection dropped before a response.
	KindConnection ErrorKind = "connection"
	// KindInvalidRequest: any other 400.
	KindInvalidRequest ErrorKind = "invalid_request"
	// KindStream: an error event in the middle of a stream.
	KindStream ErrorKind = "stream_error"
	// KindOther: any other API error, by status.
	KindOther ErrorKind = "other"
	// KindException: the model seam failed with an error that is not a
	// [*RequestError] (a harness fault), as the trace's request_failed
	// event names it.
	KindException ErrorKind = "exception"
	// KindAborted: the request was cut by the run's context (the user's
	// abort), as the trace's request_failed event names it.
	KindAborted ErrorKind = "aborted"
)

// ErrorKinds lists every kind a [*RequestError] carries, in a fixed
// order. [KindException] and [KindAborted] name failures that are not
// request errors and are not listed.
var ErrorKinds = []ErrorKind{
	KindPromptTooLong, KindRequestTooLarge, KindMediaTooLarge, KindImageSize, KindFallbackTriggered,
	KindOverloaded, KindRateLimited, KindServer, KindConnection, KindInvalidRequest,
	KindStream, KindOther,
}

// RequestError is a failed model request.
type RequestError struct {
	Kind ErrorKind `json:"kind"`
	// Status is the HTTP status the failure came with; a dropped
	// connection has 0 before any response and 200 once the response
	// had begun (a stream cut by the drop).
	Status  int    `json:"status,omitempty"`
	Message string `json:"message"`
	// RetryAfterMS is the server's retry-after, in milliseconds, if sent.
	RetryAfterMS int `json:"retry_after_ms,omitempty"`
}

// Error implements error: "<status> <kind>: <message>".
func (e *RequestError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%d %s: %s", e.Status, e.Kind, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Kind, e.Message)
}

// StatusStreamBegun is the Status of a [RequestError] of kind connection
// whose connection dropped after the response had begun (HTTP 200 and
// some of the stream received).
const StatusStreamBegun = 200

// PromptTooLongError is the 400 the API returns for an over-long prompt.
func PromptTooLongError(tokens, maximum int) *RequestError {
	return &RequestError{Kind: KindPromptTooLong, Status: KindPromptTooLong.Status(),
		Message: fmt.Sprintf("prompt is too long: %d tokens > %d maximum", tokens, maximum)}
}

// asRequestError returns err as a *RequestError, or nil.
func asRequestError(err error) *RequestError {
	if err == nil {
		return nil
	}
	var re *RequestError
	if errors.As(err, &re) {
		return re
	}
	return nil
}
