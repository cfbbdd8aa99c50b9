package gemini

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/internal/adapter"
)

// retryInfoType is the type of the error detail that carries a retry
// delay.
const retryInfoType = "type.googleapis.com/google.rpc.RetryInfo"

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
	}
	return adapter.Connection(err)
}

// classifyAPI classifies an error object of the API.
func classifyAPI(ae genai.APIError, status int) *loop.RequestError {
	code := ae.Code
	if code == 0 || status >= 200 && status < 300 {
		// the status the answer came with: an error object in a
		// stream that had begun is one of that stream
		code = status
	}
	a := adapter.Answer{Status: code, Message: adapter.Message(ae.Code, ae.Message, ae.Status), Overloaded: code == http.StatusServiceUnavailable}
	a.MediaTooLarge = mediaTooLarge(a.Message)
	a.PromptTooLong = promptTooLong(a.Message, &a.Tokens, &a.Maximum)
	if code == http.StatusTooManyRequests {
		a.RetryAfterMS = retryDelayMS(ae.Details)
	}
	return adapter.Classify(a)
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
	return adapter.Mentions(msg, []string{"exceed", "too large"}, []string{"image", "pdf", "document", "file", "inline data"})
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
