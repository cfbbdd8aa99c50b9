package wirecheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/loop"
)

// Agent runs one session of the agent under test against the fake server
// that s describes, and returns nil when the session completed or an
// error when the agent reports that it failed. It must return once ctx
// is done.
type Agent func(ctx context.Context, s Session) error

// Session is what one case gives the agent: where the server is, which
// API to speak, the model to ask for and the task.
type Session struct {
	// BaseURL is the server's base URL, "http://127.0.0.1:PORT": the
	// Messages and Gemini APIs are under it, OpenAI's under BaseURL+"/v1".
	BaseURL string
	// API is the API the case is served on: messages, chat, responses or
	// gemini (fakemodel/fakeapi.APIs). The server answers every API; a
	// case checks the one named here.
	API string
	// Env is every API's client variables for the server
	// (fakeapi.ClientEnv: ANTHROPIC_BASE_URL, OPENAI_BASE_URL, ...).
	Env []string
	// Model is the model to ask for: its name, window and output maximum.
	Model loop.ModelInfo
	// Tools are the tools the schedule's replies call; the agent offers
	// them and answers each call.
	Tools []string
	// Prompt is the user's task.
	Prompt string
}

// Property is a user's own predicate over a finished case, checked by
// [TestAgent] alongside the invariants.
type Property struct {
	// Name names the property in a failure report.
	Name string
	// Check returns nil when the run keeps the property.
	Check func(r Run) error
}

// Options say what [TestAgent] checks and how it draws schedules. The
// limits (MaxRetries, MaxCompactions, ...) are the agent's own, as its
// author states them: the invariants hold the agent to them and the
// generator drives the schedules to them.
type Options struct {
	// APIs are the APIs a case may be served on (a case draws one); empty
	// means every API of fakeapi.APIs.
	APIs []string
	// Model is the model the agent asks for; zero means [DefaultModel].
	Model loop.ModelInfo
	// Tools are the tool names the schedules call; empty means
	// [DefaultTools].
	Tools []string
	// MaxRetries is how many times the agent retries a failed request in
	// a row before it gives up; zero means [DefaultMaxRetries]. More
	// than MaxRetries+1 failed requests in a row break bounded-retries.
	MaxRetries int
	// MaxCompactions is how many compaction requests in a row, each with
	// at most one main request answered since the one before it, the
	// agent may send (a compaction that does not buy two main turns made
	// no progress); zero means [DefaultMaxCompactions].
	MaxCompactions int
	// RetryAfters are the retry-afters a rate limit carries, drawn per
	// fault; empty means [DefaultRetryAfters]. Keep them short: a case
	// lasts as long as the agent waits.
	RetryAfters []time.Duration
	// RetryAfterSlack is how much sooner than a retry-after the next
	// request may arrive; zero means [DefaultRetryAfterSlack].
	RetryAfterSlack time.Duration
	// SessionTimeout bounds a session: the agent's context ends then, and
	// a session that has not returned by then breaks session-ends. Zero
	// means [DefaultSessionTimeout].
	SessionTimeout time.Duration
	// MaxSteps bounds a schedule's steps; zero means [DefaultMaxSteps].
	MaxSteps int
	// Properties are the user's own predicates, checked on every case.
	Properties []Property
	// Skip names invariants ([InvariantNames]) not to check.
	Skip []string
	// Out, when set, is a directory the minimal failing scenario is
	// written to (created if missing); the report prints it either way.
	Out string
	// Name names the agent in the scenario file; empty means the test's
	// name.
	Name string
}

// Defaults of [Options].
const (
	DefaultMaxRetries      = 10
	DefaultMaxCompactions  = 3
	DefaultRetryAfterSlack = 20 * time.Millisecond
	DefaultSessionTimeout  = 10 * time.Second
	DefaultMaxSteps        = 8
)

// DefaultModel is the model of a case when Options.Model is unset.
var DefaultModel = loop.ModelInfo{Name: "loopsim-model", ContextWindow: 200_000, MaxOutputTokens: 64_000}

// DefaultTools are the tools the schedules call when Options.Tools is
// unset.
var DefaultTools = []string{"read_file"}

// DefaultRetryAfters are the retry-afters a rate limit carries when
// Options.RetryAfters is unset.
var DefaultRetryAfters = []time.Duration{0, 40 * time.Millisecond, 120 * time.Millisecond}

// DefaultPrompt is the user's task in every session.
const DefaultPrompt = "The test TestParse in parse_test.go fails since the last change to parse.go: " +
	"the parser now drops the last field of a line that ends without a newline. Read both files, " +
	"find the change that broke it, fix parse.go so that the test passes again, and do not change the test. " +
	"Keep the fix small and say in one sentence what was wrong."

// WithDefaults is o with its zero fields filled with the defaults: the
// limits a [Run] is checked under.
func (o Options) WithDefaults() Options { return o.withDefaults() }

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if len(o.APIs) == 0 {
		o.APIs = APINames()
	}
	if o.Model == (loop.ModelInfo{}) {
		o.Model = DefaultModel
	}
	if len(o.Tools) == 0 {
		o.Tools = DefaultTools
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = DefaultMaxRetries
	}
	if o.MaxCompactions == 0 {
		o.MaxCompactions = DefaultMaxCompactions
	}
	if len(o.RetryAfters) == 0 {
		o.RetryAfters = DefaultRetryAfters
	}
	if o.RetryAfterSlack == 0 {
		o.RetryAfterSlack = DefaultRetryAfterSlack
	}
	if o.SessionTimeout == 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.MaxSteps == 0 {
		o.MaxSteps = DefaultMaxSteps
	}
	return o
}

// Validate reports options no case can be drawn from (o's zero fields
// take their defaults first).
func (o Options) Validate() error { return o.withDefaults().validate() }

// validate reports options no case can be drawn from.
func (o Options) validate() error {
	known := APINames()
	for _, a := range o.APIs {
		if !slices.Contains(known, a) {
			return fmt.Errorf("APIs: no API named %q (known: %s)", a, strings.Join(known, ", "))
		}
	}
	switch {
	case o.Model.Name == "" || o.Model.ContextWindow <= 0 || o.Model.MaxOutputTokens <= 0:
		return fmt.Errorf("Model %+v needs a name, a window and an output maximum", o.Model)
	case o.MaxRetries < 0 || o.MaxRetries > 1000:
		return fmt.Errorf("MaxRetries %d is outside 0..1000", o.MaxRetries)
	case o.MaxCompactions < 0:
		return fmt.Errorf("MaxCompactions %d is negative", o.MaxCompactions)
	case o.RetryAfterSlack < 0 || o.SessionTimeout < 0:
		return errors.New("RetryAfterSlack and SessionTimeout must not be negative")
	case o.MaxSteps < 1 || o.MaxSteps > 50:
		return fmt.Errorf("MaxSteps %d is outside 1..50", o.MaxSteps)
	}
	for _, d := range o.RetryAfters {
		if d < 0 || d > time.Minute {
			return fmt.Errorf("RetryAfters: %s is outside 0..1m", d)
		}
	}
	for _, name := range o.Tools {
		if name == "" {
			return errors.New("Tools: an empty tool name")
		}
	}
	for _, name := range o.Skip {
		if !slices.Contains(InvariantNames(), name) {
			return fmt.Errorf("Skip: no invariant named %q (known: %s)", name, strings.Join(InvariantNames(), ", "))
		}
	}
	for i, p := range o.Properties {
		if p.Name == "" || p.Check == nil {
			return fmt.Errorf("Properties[%d] needs a Name and a Check", i)
		}
	}
	return nil
}

// APINames are the names of the APIs the server speaks, in the order of
// fakeapi.APIs.
func APINames() []string {
	apis := fakeapi.APIs()
	out := make([]string, len(apis))
	for i, a := range apis {
		out[i] = a.Name()
	}
	return out
}
