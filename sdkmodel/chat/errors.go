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
	"github.com/loopsim/loopsim/sdkmodel/internal/adapter"
)

// classifyAnswer is [Classify], or, when the answer's status says what
// it is though its body is not the API's error object (a proxy's HTML
// 502), the status's kind; resp is the HTTP answer, nil when none
// arrived.
func classifyAnswer(err error, resp *http.Response) *loop.RequestError {
	if re := Classify(err); re != nil || resp == nil || resp.StatusCode < 400 {
		return re
	}
	return classifyStatus(resp.StatusCode, "", fmt.Sprintf("%s (%v)", http.StatusText(resp.StatusCode), err), resp.Header)
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
		return adapter.Classify(adapter.Answer{Status: http.StatusOK, Message: msg})
	case errors.As(err, &aerr):
		var h http.Header
		if aerr.Response != nil {
			h = aerr.Response.Header
		}
		return classifyStatus(aerr.StatusCode, aerr.Code, adapter.Message(aerr.StatusCode, aerr.Message, aerr.RawJSON()), h)
	}
	return adapter.Connection(err)
}

// classifyStatus classifies an answer by its status, the API's error
// code and message, and its headers (nil when there are none).
func classifyStatus(status int, code, msg string, h http.Header) *loop.RequestError {
	a := adapter.Answer{Status: status, Message: msg,
		PromptTooLong: code == "context_length_exceeded" || strings.Contains(msg, "maximum context length"),
		MediaTooLarge: mediaTooLarge(msg),
		Overloaded:    status == http.StatusServiceUnavailable && (code == "server_overloaded" || strings.Contains(strings.ToLower(msg), "overloaded"))}
	if a.PromptTooLong {
		contextLength(msg, &a.Tokens, &a.Maximum)
	}
	if status == http.StatusTooManyRequests {
		a.RetryAfterMS = adapter.RetryAfterMS(h)
	}
	return adapter.Classify(a)
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
	return adapter.Mentions(msg, []string{"exceed", "too large"}, []string{"image", "pdf", "document", "file"})
}
