package gemini

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/internal/transport"
)

// retryInfoType is the type of the error detail that carries a retry
// delay.
const retryInfoType = "type.googleapis.com/google.rpc.RetryInfo"

// failure turns an error of a call into what the loop's seam returns: a
// [*loop.RequestError] when [Classify] knows it, else the error wrapped.
// status is the HTTP status the answer came with (0: none arrived),
// chunks how many stream chunks arrived before it (-1: not a stream).
func failure(err error, status, chunks int) error {
	if re := Classify(err, status); re != nil {
		if re.Kind == loop.KindConnection && chunks > 0 {
			re.Message = fmt.Sprintf("the connection dropped after %d stream chunks: %s", chunks, re.Message)
			re.Status = loop.StatusStreamBegun
		}
		return re
	}
	return fmt.Errorf("sdkmodel/gemini: %w", err)
}

// Classify says which [loop.ErrorKind] an error of an SDK call is; nil
// means it is neither an API error nor a failed connection. status is
// the HTTP status of the answer (200 for a stream that had begun). The
// statuses are put in the loop's terms ([loop.ErrorKind.Status]), so a
// trace reads the same whatever API the loop spoke:
//
//	an error object in a stream that began with 200   stream_error (no status)
//	400 "The input token count (N) exceeds the
//	  maximum number of tokens allowed (M)."           prompt_too_long, "prompt is too long: N tokens > M maximum"
//	400 rejecting an image, a PDF or a file as too large  media_too_large
//	other 400                                          invalid_request
//	413                                                request_too_large
//	429                                                rate_limited, the RetryInfo detail's retryDelay as the retry-after
//	503 (UNAVAILABLE: the API's overload)              overloaded (529)
//	other 5xx                                          server_error, its status
//	any other status                                   other, its status
//	a connection that fails or drops                   connection
func Classify(err error, status int) *loop.RequestError {
	var ae genai.APIError
	var aep *genai.APIError
	switch {
	case errors.As(err, &ae):
		return classifyAPI(ae, status)
	case errors.As(err, &aep) && aep != nil:
		return classifyAPI(*aep, status)
	case transport.ConnectionFailed(err):
		return &loop.RequestError{Kind: loop.KindConnection, Message: err.Error()}
	}
	return nil
}

// classifyAPI classifies an error object of the API.
func classifyAPI(ae genai.APIError, status int) *loop.RequestError {
	msg := ae.Message
	if msg == "" {
		msg = strings.TrimSpace(ae.Status)
	}
	if msg == "" {
		msg = http.StatusText(ae.Code)
	}
	code := ae.Code
	if status >= 200 && status < 300 {
		return &loop.RequestError{Kind: loop.KindStream, Message: msg}
	}
	if code == 0 {
		code = status
	}
	var n, m int
	switch {
	case code == http.StatusBadRequest && promptTooLong(msg, &n, &m):
		return loop.PromptTooLongError(n, m)
	case code == http.StatusBadRequest && mediaTooLarge(msg):
		return &loop.RequestError{Kind: loop.KindMediaTooLarge, Status: loop.KindMediaTooLarge.Status(), Message: msg}
	case code == http.StatusBadRequest:
		return &loop.RequestError{Kind: loop.KindInvalidRequest, Status: loop.KindInvalidRequest.Status(), Message: msg}
	case code == http.StatusRequestEntityTooLarge:
		return &loop.RequestError{Kind: loop.KindRequestTooLarge, Status: loop.KindRequestTooLarge.Status(), Message: msg}
	case code == http.StatusTooManyRequests:
		return &loop.RequestError{Kind: loop.KindRateLimited, Status: loop.KindRateLimited.Status(), Message: msg,
			RetryAfterMS: retryDelayMS(ae.Details)}
	case code == http.StatusServiceUnavailable:
		return &loop.RequestError{Kind: loop.KindOverloaded, Status: loop.KindOverloaded.Status(), Message: msg}
	case code >= 500 && code <= 599:
		return &loop.RequestError{Kind: loop.KindServer, Status: code, Message: msg}
	}
	return &loop.RequestError{Kind: loop.KindOther, Status: code, Message: msg}
}

// promptTooLong reads the API's message for an input over the model's
// limit into n and m.
func promptTooLong(msg string, n, m *int) bool {
	i := strings.Index(msg, "The input token count (")
	if i < 0 {
		return false
	}
	k, _ := fmt.Sscanf(msg[i:], "The input token count (%d) exceeds the maximum number of tokens allowed (%d).", n, m)
	return k == 2
}

// mediaTooLarge reports whether a 400 rejects an image, a PDF or a file
// for its size: the message says one "exceeds" a limit or is too large.
func mediaTooLarge(msg string) bool {
	s := strings.ToLower(msg)
	if !strings.Contains(s, "exceed") && !strings.Contains(s, "too large") {
		return false
	}
	for _, w := range []string{"image", "pdf", "document", "file", "inline data"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// retryDelayMS is the retryDelay of a RetryInfo detail in milliseconds
// (rounded up); zero when there is none or it does not parse.
func retryDelayMS(details []map[string]any) int {
	for _, d := range details {
		if t, _ := d["@type"].(string); t != retryInfoType {
			continue
		}
		s, _ := d["retryDelay"].(string)
		dur, err := time.ParseDuration(s)
		if err != nil || dur <= 0 || dur > 24*time.Hour {
			return 0
		}
		return int((dur + time.Millisecond - 1) / time.Millisecond)
	}
	return 0
}
