package adapter

import (
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
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
// timed-out connection rather than an answer: a body cut short, or a
// [net.Error] (a reset, refused or broken connection's syscall.Errno, a
// *url.Error of the client, a *net.OpError all are one).
func ConnectionFailed(err error) bool {
	var netErr net.Error
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.As(err, &netErr)
}
