package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/internal/transport"
)

// failure turns an error of a call into what the loop's seam returns: a
// [*loop.RequestError] when [Classify] knows it, or when the answer's
// status says what it is though its body is not the API's error object
// (a proxy's HTML 502), else the error wrapped. chunks is how many
// stream chunks arrived before it (-1: not a stream); resp is the HTTP
// answer, nil when none arrived.
func failure(err error, chunks int, resp *http.Response) error {
	re := Classify(err)
	if re == nil && resp != nil && resp.StatusCode >= 400 {
		re = classifyStatus(resp.StatusCode, "", fmt.Sprintf("%s (%v)", http.StatusText(resp.StatusCode), err), resp.Header)
	}
	if re != nil {
		if re.Kind == loop.KindConnection && chunks > 0 {
			re.Message = fmt.Sprintf("the connection dropped after %d stream chunks: %s", chunks, re.Message)
			re.Status = loop.StatusStreamBegun
		}
		return re
	}
	return fmt.Errorf("sdkmodel/chat: %w", err)
}

// Classify says which [loop.ErrorKind] an error of an SDK call is; nil
// means it is neither an API error nor a failed connection. The
// statuses are put in the loop's terms ([loop.ErrorKind.Status]), so a
// trace reads the same whatever API the loop spoke:
//
//	an error object in a stream that began with 200   stream_error (no status), its message
//	400 context_length_exceeded                       prompt_too_long, "prompt is too long: N tokens > M maximum" when the message gives N and M
//	400 rejecting an image or a file as too large     media_too_large
//	other 400                                         invalid_request
//	413                                               request_too_large
//	429                                               rate_limited, retry-after-ms (else retry-after in seconds)
//	503 server_overloaded, or saying "overloaded"     overloaded (529)
//	other 5xx                                         server_error, its status
//	any other status                                  other, its status
//	a connection that fails or drops                  connection
func Classify(err error) *loop.RequestError {
	var se *ssestream.StreamError
	var aerr *openai.Error
	switch {
	case errors.As(err, &se):
		var body struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		msg := ""
		if json.Unmarshal(se.Event.Data, &body) == nil {
			msg = body.Error.Message
		}
		if msg == "" {
			msg = se.Message
		}
		return &loop.RequestError{Kind: loop.KindStream, Message: msg}
	case errors.As(err, &aerr):
		return classifyAPI(aerr)
	case transport.ConnectionFailed(err):
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
	var h http.Header
	if aerr.Response != nil {
		h = aerr.Response.Header
	}
	return classifyStatus(aerr.StatusCode, aerr.Code, msg, h)
}

// classifyStatus classifies an answer by its status, the API's error
// code and message, and its headers (nil when there are none).
func classifyStatus(status int, code, msg string, h http.Header) *loop.RequestError {
	var n, m int
	switch {
	case status == http.StatusBadRequest && (code == "context_length_exceeded" || strings.Contains(msg, "maximum context length")):
		if contextLength(msg, &n, &m) {
			return loop.PromptTooLongError(n, m)
		}
		return &loop.RequestError{Kind: loop.KindPromptTooLong, Status: loop.KindPromptTooLong.Status(), Message: msg}
	case status == http.StatusBadRequest && mediaTooLarge(msg):
		return &loop.RequestError{Kind: loop.KindMediaTooLarge, Status: loop.KindMediaTooLarge.Status(), Message: msg}
	case status == http.StatusBadRequest:
		return &loop.RequestError{Kind: loop.KindInvalidRequest, Status: loop.KindInvalidRequest.Status(), Message: msg}
	case status == http.StatusRequestEntityTooLarge:
		return &loop.RequestError{Kind: loop.KindRequestTooLarge, Status: loop.KindRequestTooLarge.Status(), Message: msg}
	case status == http.StatusTooManyRequests:
		return &loop.RequestError{Kind: loop.KindRateLimited, Status: loop.KindRateLimited.Status(), Message: msg, RetryAfterMS: transport.RetryAfterMS(h)}
	case status == http.StatusServiceUnavailable && (code == "server_overloaded" || strings.Contains(strings.ToLower(msg), "overloaded")):
		return &loop.RequestError{Kind: loop.KindOverloaded, Status: loop.KindOverloaded.Status(), Message: msg}
	case status >= 500 && status <= 599:
		return &loop.RequestError{Kind: loop.KindServer, Status: status, Message: msg}
	}
	return &loop.RequestError{Kind: loop.KindOther, Status: status, Message: msg}
}

// contextLength reads the API's context_length_exceeded message into n
// (the request's tokens) and m (the model's maximum).
func contextLength(msg string, n, m *int) bool {
	i := strings.Index(msg, "maximum context length is ")
	if i < 0 {
		return false
	}
	k, _ := fmt.Sscanf(msg[i:], "maximum context length is %d tokens. However, your messages resulted in %d tokens.", m, n)
	return k == 2
}

// mediaTooLarge reports whether a 400 rejects an image or a file for its
// size: the message says one "exceeds" a maximum or is too large.
func mediaTooLarge(msg string) bool {
	s := strings.ToLower(msg)
	if !strings.Contains(s, "exceed") && !strings.Contains(s, "too large") {
		return false
	}
	for _, w := range []string{"image", "pdf", "document", "file"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
