package wire

import (
	"net/http"
	"strconv"

	"github.com/loopsim/loopsim/loop"
)

// RetryAfter is the headers that tell a client when to retry after e:
// retry-after (whole seconds, rounded up) and retry-after-ms, from
// e.RetryAfterMS; nil when e sets no delay.
func RetryAfter(e *loop.RequestError) http.Header {
	if e == nil || e.RetryAfterMS <= 0 {
		return nil
	}
	h := http.Header{}
	h.Set("retry-after", strconv.Itoa((e.RetryAfterMS+999)/1000))
	h.Set("retry-after-ms", strconv.Itoa(e.RetryAfterMS))
	return h
}
