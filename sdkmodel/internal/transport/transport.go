// Package transport holds what every loop.Model over an official SDK reads
// from HTTP the same way, whatever the API: the server's retry-after, and
// whether an error is a failed connection rather than an answer.
package transport

import (
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
)

// RetryAfterMS reads retry-after-ms, else retry-after in seconds; zero
// when neither is a usable number (an HTTP date would need a clock and is
// ignored).
func RetryAfterMS(h http.Header) int {
	parse := func(v string, scale float64) int {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) || f <= 0 || f*scale > math.MaxInt32 {
			return 0
		}
		return int(math.Round(f * scale))
	}
	if ms := parse(h.Get("retry-after-ms"), 1); ms > 0 {
		return ms
	}
	return parse(h.Get("retry-after"), 1000)
}

// ConnectionFailed reports whether err is a failed, reset, dropped or
// timed-out connection rather than an answer.
func ConnectionFailed(err error) bool {
	var netErr net.Error
	var urlErr *url.Error
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &netErr) || errors.As(err, &urlErr)
}
