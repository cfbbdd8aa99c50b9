package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// Scenario is one scenario file: a starting conversation, the fakes'
// scripts, a policy, and what the run must do. The YAML keys are the json
// names of the fields; README.md documents each. The fakes' own types are
// used where the format describes them ([fakemodel.Step] for the script,
// [fakemodel.Tool], [fakemodel.StopOutcome], ...), so a scenario says
// exactly what the fakes will do.
type Scenario struct {
	// Name identifies the scenario; in the library it is the file's name
	// without .yaml. Required.
	Name string `json:"name"`
	// Description says what the scenario shows. Required.
	Description string `json:"description"`
	// Source says where the failure was seen: an issue, the docs/spec.md section,
	// the profile document.
	Source string `json:"source"`
	// Skip, when set, is why the scenario is not run: it shows a loop bug
	// and its expectation states the correct behaviour.
	Skip string `json:"skip"`

	// Profile is the built-in policy to start from: seed or claude-code.
	// Required.
	Profile string `json:"profile"`
	// Policy overrides profile fields by their JSON names, in the order
	// written.
	Policy Overrides `json:"policy"`
	// Model describes the main model; unset fields take the defaults of
	// [DefaultModel].
	Model loop.ModelInfo `json:"model"`
	// FallbackModel describes the model to fall back to; none when unset.
	FallbackModel loop.ModelInfo `json:"fallback_model"`
	// ToolNames are the tools offered to the model; by default the names
	// of tools.by_name, sorted.
	ToolNames []string `json:"tool_names"`
	// TokenBudget is the run's output token budget; zero means none.
	TokenBudget int `json:"token_budget"`
	// Seed seeds the retry layer's jitter.
	Seed uint64 `json:"seed"`
	// IterationLimit halts a run that has not ended after this many
	// iterations; zero means [DefaultIterationLimit].
	IterationLimit int `json:"iteration_limit"`

	// Conversation is the starting history. Required, at least one message.
	Conversation []Message `json:"conversation"`
	// Script answers the model requests, main and compaction alike, one
	// step each. Required unless Answers is written; an empty list says
	// no request may be sent.
	Script []fakemodel.Step `json:"script"`
	// Answers, instead of Script, answers each request from the queue for
	// its purpose and model.
	Answers *fakemodel.Answers `json:"answers"`
	// BaseTokens is what every request carries besides its messages (the
	// system prompt and the tool definitions), in tokens: the scripted
	// model adds it to each request's size, as an API measures it. Over
	// the wire the server measures the real thing instead.
	BaseTokens int `json:"base_tokens"`
	// EventDelayMS, over the wire, makes every streamed answer slow: the
	// server waits this long, in milliseconds, before each event
	// (wire.Options.EventDelay, when that is shorter). In process it
	// changes nothing.
	EventDelayMS int `json:"event_delay_ms"`
	// Tools says how tool calls behave.
	Tools Tools `json:"tools"`
	// StopHooks are the stop hooks' verdicts, one a call, the last
	// repeating. Nil: no stop hooks.
	StopHooks []fakemodel.StopOutcome `json:"stop_hooks"`
	// Compactor, when written (even empty), replaces the loop's default
	// compactor, which asks the model for a summary, with scripted
	// compactions that never call the model.
	Compactor []fakemodel.CompactOutcome `json:"compactor"`
	// Summarizer, when written (even empty), produces the tool-use
	// summaries of the policy's tool_use_summary.
	Summarizer []fakemodel.SummaryOutcome `json:"summarizer"`

	// Expect is what the run must do. Required.
	Expect Expect `json:"expect"`
	// Recheck, in a file `simulate check-agent` wrote for a finding, says
	// what the agent broke: `simulate agent` plays the schedule (the main
	// answers) to the agent on the finding's API and re-checks the
	// finding's wire invariants under its limits, instead of comparing
	// Expect (what loopsim's own loop does with the schedule, for
	// `simulate run`, which ignores Recheck). Nil in any other file.
	Recheck *Recheck `json:"recheck"`

	// File is the file the scenario was read from.
	File string `json:"-"`
	// policy is Profile with Policy applied, set by the loader.
	policy loop.Policy
	// namePos is where the name was written.
	namePos position
	// wire is Expect.Wire.Requests parsed, set by the loader.
	wire []WireEntry
	// wireByAPI is Expect.Wire.API parsed, by API name.
	wireByAPI map[string][]WireEntry
}

// ResolvedPolicy is the profile with the scenario's overrides applied.
func (s *Scenario) ResolvedPolicy() loop.Policy { return s.policy }

// PolicyFields are the JSON names of the policy fields the scenario
// overrides, in the order first written.
func (s *Scenario) PolicyFields() []string {
	var out []string
	for _, o := range s.Policy {
		if !slices.Contains(out, o.Field) {
			out = append(out, o.Field)
		}
	}
	return out
}

// DefaultModel is the main model of a scenario that does not describe
// one: a 200,000-token window and 64,000 tokens of output.
var DefaultModel = loop.ModelInfo{Name: "model", ContextWindow: 200_000, MaxOutputTokens: 64_000}

// DefaultIterationLimit is the iteration limit of a scenario that sets
// none. Scenarios are short; a run that needs more iterations never ends.
const DefaultIterationLimit = 200

// MaxIterationLimit bounds iteration_limit, so a trace stays readable.
const MaxIterationLimit = 10_000

// Message is one message of the starting conversation.
type Message struct {
	// ID identifies the message; by default the loop gives it the next
	// free one of m1, m2, ...
	ID string `json:"id"`
	// Role is user or assistant. Required.
	Role loop.Role `json:"role"`
	// Text is a text block.
	Text string `json:"text"`
	// Tokens is the message's size; zero lets the loop estimate it.
	Tokens int `json:"tokens"`
	// Meta marks a message the loop would have injected.
	Meta bool `json:"meta"`
	// ToolUses are tool_use blocks of an assistant message; each needs an
	// id.
	ToolUses []fakemodel.ToolUse `json:"tool_uses"`
	// ToolResults are tool_result blocks of a user message.
	ToolResults []ToolResult `json:"tool_results"`
	// Usage is what the model reported for an assistant message; the
	// loop's token count starts from the last one.
	Usage *loop.Usage `json:"usage"`
}

// ToolResult is one tool_result block of the starting conversation.
type ToolResult struct {
	// ToolUseID is the tool_use it answers, earlier in the conversation.
	// Required.
	ToolUseID string `json:"tool_use_id"`
	// Text is the result's content.
	Text string `json:"text"`
	// Tokens is the result's size; zero lets the loop estimate it.
	Tokens int `json:"tokens"`
	// IsError marks an error result.
	IsError bool `json:"is_error"`
}

// Tools says how the scripted tools behave: a call's behaviour is by_id
// for its tool_use id, else by_name for its tool, else default.
type Tools struct {
	Default fakemodel.Tool            `json:"default"`
	ByName  map[string]fakemodel.Tool `json:"by_name"`
	ByID    map[string]fakemodel.Tool `json:"by_id"`
}

// Expect is what a run must do. Terminal or halted is required, and so
// is transitions (an empty list when the run never continues).
type Expect struct {
	// Terminal is the terminal the run must end with.
	Terminal loop.Terminal `json:"terminal"`
	// Halted says the run must hit the iteration limit without a
	// terminal (a run that never terminates).
	Halted bool `json:"halted"`
	// Transitions is the exact transition sequence. An entry may be
	// written "name * n" for n of the same in a row.
	Transitions []string `json:"transitions"`
	// Counters are totals the run must reach, by the names of [Counters].
	Counters map[string]int `json:"counters"`
	// Violated lists the invariants the run must break (known findings);
	// every other invariant must hold.
	Violated []string `json:"violated"`
	// Wire is what the run must show on the wire; nil: nothing.
	Wire *Wire `json:"wire"`
	// LoopOnly names expectations the wire shows that `simulate agent`
	// does not compare for a foreign agent: counters of Counters that the
	// wire shows ([Counter.OnWire]) but that an agent may reach by another
	// road, or "wire" for the whole of Wire. The loop in process is
	// compared on all of them.
	LoopOnly []string `json:"loop_only"`
}

// LoopOnlyWire is the entry of [Expect.LoopOnly] that keeps expect.wire
// from a foreign agent's verdict.
const LoopOnlyWire = "wire"

// Recheck is a check-agent finding in its scenario file: the API it was
// served on, the wire invariants the agent broke (those of package
// properties/wirecheck, which checks the names) and the limits it was
// held to.
type Recheck struct {
	// API names the API the finding was served on (messages, chat,
	// responses, gemini). Required.
	API string `json:"api"`
	// Invariants are the wire invariants the agent broke. Required.
	Invariants []string `json:"invariants"`
	// Limits are the limits the agent was held to besides the model
	// (the file's model), by the JSON names of properties/wirecheck's
	// Limits: max_retries, max_compactions, retry_after_slack_ms,
	// session_timeout_seconds, ...; one not written takes wirecheck's
	// default.
	Limits map[string]float64 `json:"limits"`
}

// PolicyOverride sets one policy field, by its JSON name, from its text
// form (see [loop.Policy.With]).
type PolicyOverride struct {
	Field string
	Value string
}

// Overrides are policy overrides in the order written. In YAML they are
// a mapping from field name to a value: a number, true or false, a name,
// or a list of names.
type Overrides []PolicyOverride

func (o *Overrides) decodeNode(d *decoder, n *yaml.Node, path string) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want a mapping from policy field to value, got %s", describe(n))
		return
	}
	d.pairs(n, path, func(key string, _, v *yaml.Node) {
		p := join(path, key)
		d.at[p] = position{v.Line, v.Column}
		switch {
		case v.Kind == yaml.ScalarNode && !isNull(v):
			*o = append(*o, PolicyOverride{Field: key, Value: v.Value})
		case v.Kind == yaml.SequenceNode:
			items := make([]string, 0, len(v.Content))
			for i, item := range v.Content {
				if item.Kind != yaml.ScalarNode || item.ShortTag() != "!!str" {
					d.errorf(item, fmt.Sprintf("%s[%d]", p, i), "want a name, got %s", describe(item))
					return
				}
				items = append(items, item.Value)
			}
			*o = append(*o, PolicyOverride{Field: key, Value: strings.Join(items, ",")})
		default:
			d.errorf(v, p, "want a number, true or false, a name, or a list of names; got %s", describe(v))
		}
	})
}
