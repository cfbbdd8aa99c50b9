package wire

import (
	"time"

	"github.com/loopsim/loopsim/loop"
)

// Options configure a [Handler] and its [Server]. The zero value is a
// server on a free local port that checks no model's output maximum.
type Options struct {
	// Addr is the address to listen on; empty means "127.0.0.1:0", a free
	// port.
	Addr string
	// Models are the known models: a request whose output cap is over
	// its model's MaxOutputTokens is refused as its API refuses it.
	// Requests for other models are not checked.
	Models []loop.ModelInfo
	// EventDelay makes streams slow: the server waits this long before
	// each event after the first (and before a non-streaming answer).
	EventDelay time.Duration
	// MaxBodyBytes is the largest request body accepted; a larger one
	// gets the API's 413. Zero means [DefaultMaxBodyBytes].
	MaxBodyBytes int64
	// OnAbort is called when an abort step plays (see [Server.Abort]),
	// after the blocks before it were sent: a test points it at the
	// client's cancel function, as the user pressing escape.
	OnAbort func()
	// AbortWait is how long the server holds an aborted response open
	// for the client to go away before it drops the connection; zero
	// means [DefaultAbortWait].
	AbortWait time.Duration
	// ReadTimeout bounds reading one request: its headers, then its body
	// (from the moment the handler starts reading it). A client that
	// stalls inside either gets the API's 400 (the body) or a closed
	// connection (the headers). Zero means [DefaultReadTimeout].
	ReadTimeout time.Duration
	// IdleTimeout bounds how long a keep-alive connection may wait for
	// its next request before the server closes it. Zero means
	// [DefaultIdleTimeout].
	IdleTimeout time.Duration
}

// InputTokensHeader is a request header a client that counts its own
// requests (loopsim's loop over an SDK) may send: the request's input
// token count, used instead of the server's estimate, so that the
// answers (usage, prompt-too-long, conditions on input_tokens) are the
// ones the in-process fakes give for the same count. Agents that do not
// send it get the server's estimate.
const InputTokensHeader = "Loopsim-Input-Tokens"

// DefaultMaxBodyBytes is the largest request body the server reads by
// default, 32 MB: the Messages API's request size limit.
const DefaultMaxBodyBytes = 32 << 20

// DefaultAbortWait is how long an aborted response waits for the client
// to go away.
const DefaultAbortWait = 10 * time.Second

// DefaultReadTimeout is how long a request's headers, then its body, may
// take to arrive.
const DefaultReadTimeout = 30 * time.Second

// DefaultIdleTimeout is how long an idle keep-alive connection is kept.
const DefaultIdleTimeout = 2 * time.Minute
