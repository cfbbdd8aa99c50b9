package wire

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/loopsim/loopsim/loop"
)

// Record is one request as the server saw it, normalized: its shape and
// how it was answered, never its text. Every API's requests are recorded
// alike.
type Record struct {
	// Seq numbers the requests from 1 in the order they arrived.
	Seq int `json:"seq"`
	// API is the name of the API that served the request ([API.Name]:
	// messages, chat, responses, gemini).
	API string `json:"api"`
	// Purpose is main or compact, by [PurposeOf]; empty for a request that
	// could not be decoded.
	Purpose loop.Purpose `json:"purpose,omitempty"`
	// Model is the model asked for.
	Model string `json:"model,omitempty"`
	// MaxTokens is the request's output cap.
	MaxTokens int `json:"max_tokens,omitempty"`
	// Stream is whether the request asked for a stream.
	Stream bool `json:"stream"`
	// Roles is the role of each message, u for user and a for assistant.
	Roles string `json:"roles,omitempty"`
	// Messages is the number of messages.
	Messages int `json:"messages"`
	// Tools is the number of tool definitions.
	Tools int `json:"tools"`
	// InputTokens is the request's size: the server's estimate, system
	// prompt and tool definitions included, or the client's own count
	// when it sent [InputTokensHeader].
	InputTokens int `json:"input_tokens"`
	// SystemTokens is the part of InputTokens the system prompt and tool
	// definitions take.
	SystemTokens int `json:"system_tokens"`
	// Kept is how many leading messages are the same as in the previous
	// request the server answered, whatever its purpose (0 for the
	// first): a retry keeps them all, a compaction request the older part
	// of the conversation, the request after a compaction none.
	Kept int `json:"kept"`
	// Dropped is how many messages of the previous request after the kept
	// ones this request does not carry: the preserved tail a compaction
	// request leaves out, the history a compaction replaced.
	Dropped int `json:"dropped"`
	// Appended is the shape of each message after the kept ones (see
	// [Shape]): what the agent appended, or all of them after its history
	// was rewritten.
	Appended []string `json:"appended"`
	// Answer is how the server answered, in the notation of the profile's
	// request sequences: text, tool, trunc, empty, malformed (a tool-use
	// stop reason without a tool call), an HTTP status (400, 413, 429,
	// 500, 529, ...), stream_error (an error mid-stream), drop
	// (connection dropped), abort, fault (the harness's own failure),
	// gone (the client left during the model call), or rejected (the
	// request broke the API's rules; Error says which).
	Answer string `json:"answer"`
	// Status is the HTTP status sent; 0 when the connection was dropped
	// before one.
	Status int `json:"status"`
	// ErrorType is the API's error type (or code) of an error answer.
	ErrorType string `json:"error_type,omitempty"`
	// Error is the message of a rejected request or of a harness fault
	// (the script ran out); empty otherwise. Fault messages the script
	// chose are not repeated here.
	Error string `json:"error,omitempty"`
	// Blocks is how many content blocks were sent.
	Blocks int `json:"blocks"`
	// ClientGone is set when the client went away before the answer was
	// written in full.
	ClientGone bool `json:"client_gone,omitempty"`
	// Arrival is when the server took the request up, as an offset from
	// the handler's creation on the monotonic clock: a measurement (the
	// gap a client left after a retry-after), never a decision. It is
	// not written to JSON Lines, whose records stay the same run to run.
	Arrival time.Duration `json:"-"`
	// Done is when the server was through with the request, on Arrival's
	// clock: its answer written out in full, its connection dropped or
	// its refusal sent. A measurement, like Arrival; not written to JSON
	// Lines.
	Done time.Duration `json:"-"`
	// Fault is the kind of failure the model played (connection for a
	// dropped connection, overloaded, rate_limited, prompt_too_long, ...;
	// request_too_large for a body over the server's limit); empty for an
	// answer. Kept in memory for the exporters (otelexport, timeline);
	// JSON Lines keep the fields their fixtures were recorded with.
	Fault loop.ErrorKind `json:"-"`
	// Response is how the answer sent ended: its stop reason and the
	// usage it reported; zero for a failure. In memory only, as Fault.
	Response loop.Response `json:"-"`
}

// Label is the request in the profile's notation: M (main) or C
// (compaction), a colon and the answer, e.g. "M:trunc", "C:text",
// "M:400". A rejected request whose messages could not be read is
// "?:rejected". The notation is the same whatever API served it.
func (r Record) Label() string {
	p := "?"
	switch r.Purpose {
	case loop.PurposeMain:
		p = "M"
	case loop.PurposeCompact:
		p = "C"
	}
	return p + ":" + r.Answer
}

// Labels is the label of each record, in order.
func Labels(records []Record) []string {
	out := make([]string, len(records))
	for i, r := range records {
		out[i] = r.Label()
	}
	return out
}

// WriteJSONL writes records as JSON Lines, one record a line.
func WriteJSONL(w io.Writer, records []Record) error {
	enc := json.NewEncoder(w)
	for i, r := range records {
		if r.Appended == nil {
			r.Appended = []string{}
		}
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("wire: record %d: %w", i+1, err)
		}
	}
	return nil
}

// ReadJSONL reads records written by [WriteJSONL]. Unknown fields are
// errors.
func ReadJSONL(r io.Reader) ([]Record, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var out []Record
	for dec.More() {
		var rec Record
		if err := dec.Decode(&rec); err != nil {
			return out, fmt.Errorf("wire: record %d: %w", len(out)+1, err)
		}
		if rec.Appended == nil {
			rec.Appended = []string{}
		}
		out = append(out, rec)
	}
	return out, nil
}

// Roles is the role of each message: u for user, a for assistant.
func Roles(msgs []loop.Message) string {
	out := make([]byte, len(msgs))
	for i, m := range msgs {
		out[i] = 'u'
		if m.Role == loop.RoleAssistant {
			out[i] = 'a'
		}
	}
	return string(out)
}
