package fakemodel

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loopsim/loopsim/loop"
)

// Kind says what a [Step] does: reply, or fail in one particular way.
type Kind string

// The step kinds. The zero Kind is [Reply].
const (
	// Reply is an ordinary response: Thinking, Text and ToolUses, in that
	// order. The stop reason is tool_use when there are tool uses, else
	// end_turn, unless Stop says otherwise.
	Reply Kind = "reply"
	// Empty is a response with no content blocks (stop reason end_turn).
	Empty Kind = "empty"
	// MalformedToolUse is a response whose stop reason is tool_use but
	// which carries no tool_use block.
	MalformedToolUse Kind = "malformed_tool_use"
	// Truncated is a response cut at the output cap: stop reason
	// max_tokens and output tokens = the request's MaxTokens. If the step
	// has ToolUses, the last one's input is cut: as written when the
	// script states it cut (not a JSON object), else in half.
	Truncated Kind = "truncated"
	// PromptTooLong fails with 400 "prompt is too long: N tokens > M
	// maximum": N is the request's InputTokens (or the step's), M is the
	// step's Maximum, else the Model's Window.
	PromptTooLong Kind = "prompt_too_long"
	// RequestTooLarge fails with 413.
	RequestTooLarge Kind = "request_too_large"
	// MediaTooLarge fails with 400: the API rejected an image or document
	// as too large.
	MediaTooLarge Kind = "media_too_large"
	// ImageSize fails with no status: an image failed the size check
	// before the request was sent.
	ImageSize Kind = "image_size"
	// Overloaded fails with 529.
	Overloaded Kind = "overloaded"
	// FallbackTriggered yields After content blocks (none by default), then
	// fails with 529 of kind fallback_triggered: switch
	// to the fallback model.
	FallbackTriggered Kind = "fallback_triggered"
	// RateLimited fails with 429, with the step's RetryAfterMS if set.
	RateLimited Kind = "rate_limited"
	// ServerError fails with 500, or the step's Status (5xx).
	ServerError Kind = "server_error"
	// ConnectionDropped yields After content blocks (none by default),
	// then fails with no status: the connection dropped.
	ConnectionDropped Kind = "connection_dropped"
	// InvalidRequest fails with a 400 other than prompt-too-long.
	InvalidRequest Kind = "invalid_request"
	// OtherStatus fails with the step's Status (required), kind other.
	OtherStatus Kind = "other_status"
	// StreamError yields After content blocks, then fails with an error
	// event (kind stream_error).
	StreamError Kind = "stream_error"
	// Abort yields After content blocks, then calls the Model's Cancel and
	// returns the context's error: the user aborted mid-stream.
	Abort Kind = "abort"
	// Thrown fails with an error that is not an API answer (a broken
	// client, a bug on the caller's side): not a *loop.RequestError, so
	// the loop ends model_error (docs/spec.md §2.3).
	Thrown Kind = "thrown"
)

// Kinds lists every step kind in a fixed order.
var Kinds = []Kind{
	Reply, Empty, MalformedToolUse, Truncated, PromptTooLong, RequestTooLarge,
	MediaTooLarge, ImageSize, Overloaded, FallbackTriggered, RateLimited, ServerError,
	ConnectionDropped, InvalidRequest, OtherStatus, StreamError, Abort, Thrown,
}

// Forever is the Repeat value that makes a step answer every request from
// then on.
const Forever = -1

// Bounds on the counts a step or an outcome may state. Sizes are bounded
// by [loop.MaxTokenCount] and retry-afters by [loop.MaxRetryAfterMS].
const (
	// MaxHoldMS bounds HoldMS: an hour.
	MaxHoldMS = 3_600_000
	// MaxAfter bounds After: the content blocks one stream yields before
	// it fails.
	MaxAfter = 10_000
	// MaxRepeat bounds a step's Repeat and an outcome's Times.
	MaxRepeat = 1_000_000
)

// Step is one scripted answer to one request. Only the fields that apply
// to the step's Kind may be set; [Step.Validate] says which.
type Step struct {
	// Kind is what the step does; empty means [Reply].
	Kind Kind `json:"kind,omitempty"`

	// Text is a text block's content.
	Text string `json:"text,omitempty"`
	// Thinking is a thinking block's content, yielded before the text.
	Thinking string `json:"thinking,omitempty"`
	// ToolUses are tool_use blocks, yielded after the text.
	ToolUses []ToolUse `json:"tool_uses,omitempty"`
	// Stop overrides a reply's stop reason.
	Stop loop.StopReason `json:"stop,omitempty"`
	// OutputTokens is the reported output; zero means an estimate from the
	// content (for Truncated: the request's MaxTokens).
	OutputTokens int `json:"output_tokens,omitempty"`
	// InputTokens is the reported input (and N of a prompt-too-long);
	// zero means the request's InputTokens.
	InputTokens int `json:"input_tokens,omitempty"`

	// Maximum is M of a prompt-too-long; zero means the Model's Window.
	Maximum int `json:"maximum,omitempty"`
	// Status is the HTTP status of a server_error (default 500) or an
	// other_status fault.
	Status int `json:"status,omitempty"`
	// Message replaces a fault's default message.
	Message string `json:"message,omitempty"`
	// RetryAfterMS is the retry-after the fault carries, in milliseconds.
	RetryAfterMS int `json:"retry_after_ms,omitempty"`
	// HoldMS, over the wire, holds the request this long before it is
	// answered: the server sends nothing, not even the response's
	// headers, as a server that accepted the request and stalls (a
	// client that gives up first finds its request gone). The server
	// answers one request at a time, so another request waits for the
	// hold to end or its client to leave. In process ([Model.Hold] off)
	// it changes nothing. Any kind of step takes it.
	HoldMS int `json:"hold_ms,omitempty"`
	// After is how many content blocks a stream_error, connection_dropped,
	// fallback_triggered or abort step yields before it fails; missing
	// blocks are made up as text "chunk i".
	After int `json:"after,omitempty"`
	// CutText is the text of a block a connection_dropped or stream_error
	// step is cut inside of, after its After blocks: over the wire its
	// start and this text go out, never its end; the loop never receives
	// it (an unfinished block is not part of the reply).
	CutText string `json:"cut_text,omitempty"`

	// Repeat answers this many requests with the step (0 and 1 mean
	// once); [Forever] answers every request from then on.
	Repeat int `json:"repeat,omitempty"`

	// If, when set, makes the step a branch: the request is answered by
	// Then when the condition holds and by Else otherwise. A branch step
	// sets nothing else but Repeat.
	If *Condition `json:"if,omitempty"`
	// Then answers when If holds.
	Then *Step `json:"then,omitempty"`
	// Else answers when If does not hold.
	Else *Step `json:"else,omitempty"`
}

// ToolUse is one scripted tool_use block.
type ToolUse struct {
	// ID is the block's id; empty means "toolu_<request>_<k>", unique
	// across the run (request counts from 1 over every request the Model
	// received, k from 1 within the step). Explicit IDs are used as given.
	ID string `json:"id,omitempty"`
	// Name is the tool. Required.
	Name string `json:"name"`
	// Input is the raw JSON input, an object; empty means "{}". A step
	// whose stream fails (abort, stream_error, fallback_triggered,
	// connection_dropped) may carry an input cut short, and so may the
	// last tool_use of a truncated step: the API sends the input as far as
	// the model wrote it.
	Input string `json:"input,omitempty"`
}

// ValidateInput checks the tool_use's input is a JSON object, as the API
// sends it (empty stands for {}). A truncated step cuts the input on
// purpose when it plays; the script states it whole.
func (t ToolUse) ValidateInput() error {
	if t.Input == "" {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(t.Input), &obj); err != nil || obj == nil {
		in := t.Input
		if len(in) > 40 {
			in = in[:37] + "..."
		}
		return fmt.Errorf("input %q is not a JSON object", in)
	}
	return nil
}

// kind returns the step's kind, defaulting to Reply.
func (s Step) kind() Kind {
	if s.Kind == "" {
		return Reply
	}
	return s.Kind
}

// content fields every kind that yields blocks accepts.
var (
	replyFields  = []string{"text", "thinking", "tool_uses", "stop", "output_tokens", "input_tokens"}
	faultFields  = []string{"message", "retry_after_ms"}
	streamFields = []string{"text", "thinking", "tool_uses", "after"}
)

// allowedFields says which fields each kind accepts (Repeat, If, Then
// and Else are checked separately).
var allowedFields = map[Kind][]string{
	Reply:             replyFields,
	Empty:             {"output_tokens", "input_tokens"},
	MalformedToolUse:  {"text", "thinking", "output_tokens", "input_tokens"},
	Truncated:         {"text", "thinking", "tool_uses", "output_tokens", "input_tokens"},
	PromptTooLong:     {"input_tokens", "maximum"},
	RequestTooLarge:   faultFields,
	MediaTooLarge:     faultFields,
	ImageSize:         faultFields,
	Overloaded:        faultFields,
	FallbackTriggered: append(append([]string(nil), streamFields...), "message"),
	RateLimited:       faultFields,
	ServerError:       append([]string{"status"}, faultFields...),
	ConnectionDropped: append(append([]string(nil), streamFields...), "message", "cut_text"),
	InvalidRequest:    faultFields,
	OtherStatus:       append([]string{"status"}, faultFields...),
	StreamError:       append(append([]string(nil), streamFields...), "message", "cut_text"),
	Abort:             streamFields,
	Thrown:            {"message"},
}

// setFields lists, in a fixed order, the JSON names of the step's content
// and fault fields that are not zero.
func (s Step) setFields() []string {
	var out []string
	add := func(set bool, name string) {
		if set {
			out = append(out, name)
		}
	}
	add(s.Text != "", "text")
	add(s.Thinking != "", "thinking")
	add(len(s.ToolUses) > 0, "tool_uses")
	add(s.Stop != "", "stop")
	add(s.OutputTokens != 0, "output_tokens")
	add(s.InputTokens != 0, "input_tokens")
	add(s.Maximum != 0, "maximum")
	add(s.Status != 0, "status")
	add(s.Message != "", "message")
	add(s.RetryAfterMS != 0, "retry_after_ms")
	add(s.After != 0, "after")
	add(s.CutText != "", "cut_text")
	return out
}

// Validate reports whether the step is well formed: a known kind, only
// fields that apply to it, no negative figures, tool uses with names, and
// for a branch a valid condition with both Then and Else.
func (s Step) Validate() error { return s.validate(false) }

// validate is Validate for a script step, or for a then/else branch
// when nested: its repeat, then a branch's condition and branches, or a
// step's kind, fields, figures, tool uses and what its kind requires.
func (s Step) validate(nested bool) error {
	if err := s.validateRepeat(nested); err != nil {
		return err
	}
	if s.HoldMS < 0 || s.HoldMS > MaxHoldMS {
		return fmt.Errorf("hold_ms %d: must be 0 to %d (MaxHoldMS)", s.HoldMS, MaxHoldMS)
	}
	if s.If != nil {
		if s.HoldMS != 0 {
			return errors.New("hold_ms goes on the then or else step, not on the branch")
		}
		return s.validateBranch()
	}
	if s.Then != nil || s.Else != nil {
		return errors.New("then and else need an if")
	}
	k := s.kind()
	allowed, ok := allowedFields[k]
	if !ok {
		return fmt.Errorf("unknown kind %q (known: %s)", s.Kind, kindList())
	}
	for _, f := range s.setFields() {
		if !contains(allowed, f) {
			return fmt.Errorf("field %s does not apply to kind %q (it takes: %s)", f, k, strings.Join(allowed, ", "))
		}
	}
	if err := s.validateFigures(); err != nil {
		return err
	}
	if err := s.validateToolUses(k); err != nil {
		return err
	}
	return s.validateKind(k)
}

// validateRepeat: repeat is forever or a count up to MaxRepeat, and only
// on a script step.
func (s Step) validateRepeat(nested bool) error {
	if s.Repeat < Forever {
		return fmt.Errorf("repeat %d: must be %d (forever) or more", s.Repeat, Forever)
	}
	if s.Repeat > MaxRepeat {
		return fmt.Errorf("repeat %d is above %d (MaxRepeat)", s.Repeat, MaxRepeat)
	}
	if nested && s.Repeat != 0 {
		return errors.New("repeat applies to a script step, not to a then/else branch")
	}
	return nil
}

// validateBranch: a branch step sets only its condition, which is valid,
// and both branches, each a valid step.
func (s Step) validateBranch() error {
	if s.Kind != "" || len(s.setFields()) > 0 {
		return fmt.Errorf("a branch step (if) sets only then and else, not %s", strings.Join(append(kindField(s.Kind), s.setFields()...), ", "))
	}
	if err := s.If.Validate(); err != nil {
		return fmt.Errorf("if: %w", err)
	}
	if s.Then == nil || s.Else == nil {
		return errors.New("a branch step (if) needs both then and else")
	}
	if err := s.Then.validate(true); err != nil {
		return fmt.Errorf("then: %w", err)
	}
	if err := s.Else.validate(true); err != nil {
		return fmt.Errorf("else: %w", err)
	}
	return nil
}

// validateFigures: no figure is negative or above its bound.
func (s Step) validateFigures() error {
	for _, n := range []struct {
		name  string
		v     int
		most  int
		bound string
	}{{"output_tokens", s.OutputTokens, loop.MaxTokenCount, "loop.MaxTokenCount"},
		{"input_tokens", s.InputTokens, loop.MaxTokenCount, "loop.MaxTokenCount"},
		{"maximum", s.Maximum, loop.MaxTokenCount, "loop.MaxTokenCount"},
		{"retry_after_ms", s.RetryAfterMS, loop.MaxRetryAfterMS, "loop.MaxRetryAfterMS"},
		{"after", s.After, MaxAfter, "MaxAfter"}} {
		if n.v < 0 {
			return fmt.Errorf("%s %d is negative", n.name, n.v)
		}
		if n.v > n.most {
			return fmt.Errorf("%s %d is above %d (%s)", n.name, n.v, n.most, n.bound)
		}
	}
	return nil
}

// validateToolUses: every tool use has a name, and in a step of kind k
// that replies whole, an input that is a JSON object (but for the last
// tool_use of a truncated step, which the output cap may cut).
func (s Step) validateToolUses(k Kind) error {
	for i, t := range s.ToolUses {
		if t.Name == "" {
			return fmt.Errorf("tool_uses[%d] has no name", i)
		}
		// a stream that fails (abort, stream_error, fallback_triggered)
		// may stop inside a tool_use's input, and the output cap inside
		// the last one's; a reply's is whole
		if k == Reply || (k == Truncated && i < len(s.ToolUses)-1) {
			if err := t.ValidateInput(); err != nil {
				return fmt.Errorf("tool_uses[%d]: %w", i, err)
			}
		}
	}
	return nil
}

// validateKind checks what kind k requires: a reply has content and a
// known stop reason, a server error's status is 5xx, another status is
// an error status.
func (s Step) validateKind(k Kind) error {
	switch k {
	case Reply:
		if s.Text == "" && s.Thinking == "" && len(s.ToolUses) == 0 {
			return fmt.Errorf("a reply needs text, thinking or tool_uses (use kind %q for an empty reply)", Empty)
		}
		switch s.Stop {
		case "", loop.StopEndTurn, loop.StopToolUse, loop.StopMaxTokens:
		default:
			return fmt.Errorf("stop %q is not one of %s, %s, %s", s.Stop, loop.StopEndTurn, loop.StopToolUse, loop.StopMaxTokens)
		}
	case ServerError:
		if s.Status != 0 && (s.Status < 500 || s.Status > 599) {
			return fmt.Errorf("status %d of a server_error must be 5xx", s.Status)
		}
	case OtherStatus:
		if s.Status < 400 || s.Status > 599 {
			return fmt.Errorf("other_status needs an error status between 400 and 599, got %d", s.Status)
		}
	}
	return nil
}

func kindField(k Kind) []string {
	if k == "" {
		return nil
	}
	return []string{"kind"}
}

func kindList() string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ValidateScript checks every step of a script and that no step follows
// one that repeats forever (it could never be reached). It reports every
// problem, each as a [*StepError].
func ValidateScript(script []Step) error {
	var errs []error
	for i, s := range script {
		if err := s.Validate(); err != nil {
			errs = append(errs, &StepError{Step: i, Err: err})
		}
		if s.Repeat == Forever && i < len(script)-1 {
			errs = append(errs, &StepError{Step: i + 1, Err: fmt.Errorf("unreachable: step %d repeats forever", i)})
		}
	}
	return errors.Join(errs...)
}
