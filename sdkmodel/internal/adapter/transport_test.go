package adapter

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRetryAfterMS(t *testing.T) {
	for _, c := range []struct {
		ms, s string
		want  int
	}{
		{"", "", 0},
		{"1500", "", 1500},
		{"", "2", 2000},
		{"250", "9", 250},
		{"0", "3", 3000},
		{"x", "1.5", 1500},
		{"", "0.0004", 0},
		{"", "-1", 0},
		{"", "NaN", 0},
		{"", "Wed, 21 Oct 2026 07:28:00 GMT", 0},
		{"3000000000", "", 0},
		{"2147483647", "", 2147483647},
		{"", "2147484", 0},
		{" 7 ", "", 7},
		{"1", "5", 1},
		{"", "0.5", 500},
	} {
		h := http.Header{}
		if c.ms != "" {
			h.Set("retry-after-ms", c.ms)
		}
		if c.s != "" {
			h.Set("retry-after", c.s)
		}
		assert.Equal(t, c.want, RetryAfterMS(h), "retry-after-ms %q, retry-after %q", c.ms, c.s)
	}
}

func TestConnectionFailed(t *testing.T) {
	for _, err := range []error{
		io.ErrUnexpectedEOF, io.EOF, syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.EPIPE,
		fmt.Errorf("read: %w", io.ErrUnexpectedEOF),
		&url.Error{Op: "Post", URL: "http://x", Err: errors.New("refused")},
		&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("refused")},
	} {
		assert.True(t, ConnectionFailed(err), "%v", err)
	}
	for _, err := range []error{errors.New("400 bad request"), fmt.Errorf("decode: %w", errors.New("bad json"))} {
		assert.False(t, ConnectionFailed(err), "%v", err)
	}
}
