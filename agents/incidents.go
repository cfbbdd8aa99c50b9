package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/scenarios"
)

// Incident is a failure reported against a released agent, played on the
// wire by a scenario of scenarios/incidents/ and run against the agent's
// pinned version (docs/incidents.md).
type Incident struct {
	// Scenario is the scenario's name: its file in scenarios/incidents/
	// without .yaml.
	Scenario string
	// Issue is where the failure was reported: owner/repo#number.
	Issue string
	// Agent is the preset of the agent it was reported against.
	Agent string
	// ReportedOn is the version the report names; empty when it names
	// none.
	ReportedOn string
	// Rules are the rules of [Judge] whose breaking is the incident: the
	// run reproduces it when it breaks any of them.
	Rules []string
	// Wire says the scenario's expect.wire is part of the verdict: a run
	// whose request sequence departs from it reproduces the incident too.
	Wire bool
	// Timeout bounds the run; zero means [IncidentTimeout].
	Timeout time.Duration
}

// IncidentTimeout is how long an incident's run may take by default.
const IncidentTimeout = 2 * time.Minute

// loopTimeout bounds the incidents whose agent loops ten requests a
// second or more: half a minute shows the loop many times over and keeps
// the fixture small.
const loopTimeout = 30 * time.Second

// The verdicts of an incident's run.
const (
	// VerdictReproduced: the run broke a rule of the incident (or missed
	// its wire expectation).
	VerdictReproduced = "reproduced"
	// VerdictNotReproduced: the run kept every rule of the incident: the
	// pinned version does not fail as reported under this trigger.
	VerdictNotReproduced = "not reproduced"
)

// The wire invariants (properties/wirecheck.InvariantNames) the incidents
// name besides [InvariantBoundedCompaction]; TestIncidentsTable checks
// each is one.
const (
	invariantBoundedRetries     = "bounded-retries"
	invariantRetryAfterHonoured = "retry-after-honoured"
	invariantFailureReported    = "failure-reported"
	invariantSessionEnds        = "session-ends"
)

// incidents are the reported failures loopsim plays, by agent.
var incidents = []Incident{
	// A compaction followed by two tool rounds or more is progress to
	// bounded-compaction, so #13279's spiral (two rounds between
	// compactions) shows as a session that never ends (session-ends): the
	// twelve rounds take a correct agent a second or two of the thirty.
	// #14120's (a compaction after every round) breaks both.
	{Scenario: "codex-13279-compaction-death-spiral", Issue: "openai/codex#13279", Agent: "codex", ReportedOn: "Codex App 26.228.1430",
		Rules: []string{InvariantBoundedCompaction, invariantSessionEnds}, Timeout: loopTimeout},
	{Scenario: "codex-14120-compaction-leaves-context-full", Issue: "openai/codex#14120", Agent: "codex", ReportedOn: "0.112.0",
		Rules: []string{InvariantBoundedCompaction, invariantSessionEnds}, Timeout: loopTimeout},
	{Scenario: "codex-13271-compaction-request-too-long", Issue: "openai/codex#13271", Agent: "codex", ReportedOn: "0.107.0-alpha.3",
		Rules: []string{InvariantBoundedCompaction, invariantFailureReported}, Wire: true},
	{Scenario: "codex-19121-stream-disconnected", Issue: "openai/codex#19121", Agent: "codex", ReportedOn: "0.114.0",
		Rules: []string{RuleRetriesWithoutBound, invariantBoundedRetries, invariantFailureReported, RuleHangsAfterFailure}},
	{Scenario: "codex-23304-rate-limit-not-retried", Issue: "openai/codex#23304", Agent: "codex", ReportedOn: "0.130.0",
		Rules: []string{invariantRetryAfterHonoured, invariantFailureReported}, Wire: true},
	{Scenario: "codex-31376-no-header-timeout", Issue: "openai/codex#31376", Agent: "codex", ReportedOn: "0.154.0",
		Rules: []string{invariantSessionEnds, RuleHangsAfterFailure}, Wire: true},
	{Scenario: "gemini-cli-16213-compression-every-turn", Issue: "google-gemini/gemini-cli#16213", Agent: "gemini-cli",
		Rules: []string{InvariantBoundedCompaction}},
	{Scenario: "opencode-27924-compaction-loop", Issue: "anomalyco/opencode#27924", Agent: "opencode", ReportedOn: "1.14.50",
		Rules: []string{InvariantBoundedCompaction, RuleRetriesWithoutBound}},
	{Scenario: "opencode-42268-fatal-error-never-exits", Issue: "anomalyco/opencode#42268", Agent: "opencode", ReportedOn: "1.18.15",
		Rules: []string{RuleHangsAfterFailure}},
	{Scenario: "qwen-code-4964-escalation-reset-every-turn", Issue: "QwenLM/qwen-code#4964", Agent: "qwen-code",
		Rules: []string{RuleRetriesWithoutBound}},
}

// Incidents are the incidents loopsim plays, in a fixed order.
func Incidents() []Incident { return slices.Clone(incidents) }

// RuleOf is the rule a mark of [Judge] names ("bounded-compaction:
// request 9: 4 compaction requests ..." is "bounded-compaction").
func RuleOf(mark string) string {
	rule, _, _ := strings.Cut(mark, ":")
	return rule
}

// Verdict is the incident's verdict on a run that broke the rules marked
// in broken (as [Judge] marks them) and kept its wire expectation or not.
func (in Incident) Verdict(broken []string, wireKept bool) string {
	if in.Wire && !wireKept {
		return VerdictReproduced
	}
	for _, mark := range broken {
		if slices.Contains(in.Rules, RuleOf(mark)) {
			return VerdictReproduced
		}
	}
	return VerdictNotReproduced
}

// limit is the incident's time bound.
func (in Incident) limit() time.Duration {
	if in.Timeout > 0 {
		return in.Timeout
	}
	return IncidentTimeout
}

// IncidentRun is one run of an incident's scenario against its agent,
// normalized: what the server saw and how the agent ended, nothing the
// agent sent but sizes. It is the fixture docs/incidents.md and the tests
// read (agents/testdata/incidents/NAME.json).
type IncidentRun struct {
	Scenario string `json:"scenario"`
	Issue    string `json:"issue"`
	Agent    string `json:"agent"`
	// Version is the pinned version that ran.
	Version string `json:"version"`
	// API and Model are the API the agent spoke and the model it asked
	// for (its first request's).
	API   string `json:"api"`
	Model string `json:"model"`
	// ElapsedMS is the run's wall-clock time, in milliseconds.
	ElapsedMS int64 `json:"elapsed_ms"`
	// Requests are the requests the server saw, in order.
	Requests []IncidentRequest `json:"requests"`
	// Exit is the agent's exit status; -1 when it was killed.
	Exit int `json:"exit"`
	// FinalEvent is the agent's last word ([FinalEvent]).
	FinalEvent string `json:"final_event"`
	// TimedOut says the agent was killed at TimeoutSeconds.
	TimedOut       bool    `json:"timed_out"`
	TimeoutSeconds float64 `json:"timeout_seconds"`
	// WireWant and WireGot are the request sequence the scenario's
	// expect.wire asks for and the one the agent showed, when the
	// incident's verdict includes it.
	WireWant []string `json:"wire_want,omitempty"`
	WireGot  []string `json:"wire_got,omitempty"`
	// Broken are the rules the run broke, as [Judge] marks them.
	Broken []string `json:"broken"`
	// Verdict is [VerdictReproduced] or [VerdictNotReproduced].
	Verdict string `json:"verdict"`
}

// IncidentRequest is one request of an [IncidentRun]: its label (M:429,
// C:text, ...), its output cap, size, number of messages and of tool
// definitions, how it continued the request before (messages kept and
// dropped, the shape of each appended one: wire.Record's), when it
// arrived, and when the server's model was called and returned
// (milliseconds from the server's start) with the retry-after its answer
// carried.
type IncidentRequest struct {
	Label        string   `json:"label"`
	MaxTokens    int      `json:"max_tokens,omitempty"`
	Messages     int      `json:"messages"`
	Tools        int      `json:"tools"`
	InputTokens  int      `json:"input_tokens"`
	Kept         int      `json:"kept"`
	Dropped      int      `json:"dropped"`
	Appended     []string `json:"appended,omitempty"`
	ArrivalMS    int64    `json:"arrival_ms"`
	StartMS      int64    `json:"start_ms"`
	EndMS        int64    `json:"end_ms"`
	RetryAfterMS int      `json:"retry_after_ms,omitempty"`
}

// RunIncident runs the incident's scenario s with agent e (its preset and
// binary) and returns the normalized run with its verdict.
func RunIncident(ctx context.Context, in Incident, s *scenarios.Scenario, e Entrant) (IncidentRun, error) {
	if e.Absent != "" {
		return IncidentRun{}, fmt.Errorf("incident %s: agent %s: %s", in.Scenario, e.Name, e.Absent)
	}
	c, out := runCell(ctx, s, e, in.limit())
	if out == nil {
		return IncidentRun{}, fmt.Errorf("incident %s: agent %s: %s", in.Scenario, e.Name, c.Error)
	}
	run := IncidentRun{Scenario: in.Scenario, Issue: in.Issue, Agent: e.Name, Version: e.Version,
		ElapsedMS: out.Elapsed.Round(time.Millisecond).Milliseconds(), Exit: c.Exit, FinalEvent: c.FinalEvent, TimedOut: c.TimedOut,
		TimeoutSeconds: in.limit().Seconds(), Broken: nonNil(c.Broken)}
	if len(out.Records) > 0 {
		run.API, run.Model = out.Records[0].API, out.Records[0].Model
	}
	for i, r := range out.Records {
		req := IncidentRequest{Label: r.Label(), MaxTokens: r.MaxTokens, Messages: r.Messages, Tools: r.Tools, InputTokens: r.InputTokens,
			Kept: r.Kept, Dropped: r.Dropped, Appended: r.Appended, ArrivalMS: r.Arrival.Round(time.Millisecond).Milliseconds()}
		if i < len(out.Calls) {
			req.StartMS, req.EndMS = out.Calls[i].Start.Milliseconds(), out.Calls[i].End.Milliseconds()
			req.RetryAfterMS = out.Calls[i].RetryAfterMS
		}
		run.Requests = append(run.Requests, req)
	}
	if in.Wire {
		run.WireWant, run.WireGot = nonNil(out.Want.Requests), nonNil(out.Got.Requests)
	}
	run.Verdict = in.Verdict(run.Broken, slices.Equal(run.WireWant, run.WireGot))
	return run, nil
}

// MarshalFixture is the run as its fixture file holds it: indented JSON
// with one request a line.
func (r IncidentRun) MarshalFixture() ([]byte, error) {
	head := r
	head.Requests = nil
	data, err := json.MarshalIndent(head, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("incident %s: %w", r.Scenario, err)
	}
	lines := make([]string, len(r.Requests))
	for i, req := range r.Requests {
		line, err := json.Marshal(req)
		if err != nil {
			return nil, fmt.Errorf("incident %s: request %d: %w", r.Scenario, i+1, err)
		}
		lines[i] = string(line)
	}
	list := "[]"
	if len(lines) > 0 {
		list = "[\n    " + strings.Join(lines, ",\n    ") + "\n  ]"
	}
	out := strings.Replace(string(data), `"requests": null`, `"requests": `+list, 1)
	return []byte(out + "\n"), nil
}

// Rejudge judges the fixture again from what it recorded, as [Judge]
// judged the live run of scenario s: the rules broken and the verdict.
func (r IncidentRun) Rejudge(in Incident, s *scenarios.Scenario) (broken []string, verdict string) {
	out := &scenarios.AgentOutcome{Scenario: s, Exit: r.Exit, LastOutput: r.FinalEvent,
		Elapsed: time.Duration(r.ElapsedMS) * time.Millisecond}
	for i, req := range r.Requests {
		purpose, answer, _ := strings.Cut(req.Label, ":")
		rec := wire.Record{Seq: i + 1, API: r.API, Model: r.Model, Answer: answer, MaxTokens: req.MaxTokens,
			Messages: req.Messages, Tools: req.Tools, InputTokens: req.InputTokens, Kept: req.Kept, Dropped: req.Dropped,
			Appended: nonNil(req.Appended), Arrival: time.Duration(req.ArrivalMS) * time.Millisecond}
		switch purpose {
		case "M":
			rec.Purpose = loop.PurposeMain
		case "C":
			rec.Purpose = loop.PurposeCompact
		}
		out.Records = append(out.Records, rec)
		out.Calls = append(out.Calls, scenarios.ModelCall{Start: time.Duration(req.StartMS) * time.Millisecond,
			End: time.Duration(req.EndMS) * time.Millisecond, RetryAfterMS: req.RetryAfterMS})
	}
	broken = nonNil(Judge(out, r.TimedOut, time.Duration(r.TimeoutSeconds*float64(time.Second))))
	return broken, in.Verdict(broken, slices.Equal(r.WireWant, r.WireGot))
}

// nonNil is s, or an empty list for nil, so a fixture writes [] and reads
// back equal.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
