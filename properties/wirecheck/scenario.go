package wirecheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/scenarios"
)

// expectation is a scenario file's expect section, and its recheck.
type expectation struct {
	terminal    string
	halted      bool
	transitions []string
	// requests is loopsim's loop's request sequence: the file keeps it
	// from an agent's verdict (loop_only).
	requests string
	// broke, when set, are the invariants a finding broke: the file's
	// recheck, with the limits of the Options it is written under.
	broke []string
}

// placeholder is the expectation a case is served with: the server
// plays the script only, whatever the file expects.
var placeholder = expectation{terminal: "completed"}

// summaryStep answers every compaction request: a short summary.
var summaryStep = fakemodel.Step{Text: "<summary>The test file was read; the fix is in main.go.</summary>", Repeat: fakemodel.Forever}

// scenarioFile is the case as a scenario file (package scenarios' YAML):
// the model, the prompt, the schedule as the main requests' answers
// (compaction requests get [summaryStep]), tools that answer "ok", and
// exp.
func (c Case) scenarioFile(o Options, name, description string, exp expectation) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "name: %s\n", name)
	fmt.Fprintf(&b, "description: %s\n", jsonText(description))
	fmt.Fprintf(&b, "source: loopsim properties/wirecheck (docs/check-agent.md), served on the %s API\n", c.API)
	b.WriteString("profile: claude-code\n")
	fmt.Fprintf(&b, "model: %s\n", jsonText(o.Model))
	fmt.Fprintf(&b, "conversation:\n  - {role: user, text: %s}\n", jsonText(DefaultPrompt))
	fmt.Fprintf(&b, "tool_names: %s\n", jsonText(o.Tools))
	b.WriteString("tools:\n  default: {result: ok}\n")
	b.WriteString("answers:\n  main:\n")
	for _, s := range c.Steps {
		fmt.Fprintf(&b, "    - %s\n", stepJSON(s))
	}
	fmt.Fprintf(&b, "  compact:\n    - %s\n", stepJSON(summaryStep))
	b.WriteString("expect:\n")
	if exp.halted {
		b.WriteString("  halted: true\n")
	} else {
		fmt.Fprintf(&b, "  terminal: %s\n", exp.terminal)
	}
	fmt.Fprintf(&b, "  transitions: %s\n", jsonText(nonNil(exp.transitions)))
	if exp.requests != "" {
		fmt.Fprintf(&b, "  wire:\n    requests: %s\n", jsonText(exp.requests))
		b.WriteString("  loop_only: [wire]\n")
	}
	if len(exp.broke) > 0 {
		fmt.Fprintf(&b, "recheck:\n  api: %s\n  invariants: %s\n  limits: %s\n", c.API, jsonText(exp.broke), jsonText(recheckLimits(o)))
	}
	return b.Bytes()
}

// scenario is the case as the loader reads it, with exp.
func (c Case) scenario(o Options, name, description string, exp expectation) (*scenarios.Scenario, []byte, error) {
	text := c.scenarioFile(o, name, description, exp)
	s, err := scenarios.Parse(name+".yaml", text)
	if err != nil {
		return nil, text, fmt.Errorf("wirecheck: the case as a scenario: %w\n%s", err, text)
	}
	return s, text, nil
}

// referenceFile is the case as a scenario file whose expectation is what
// loopsim's own loop (the claude-code profile) does with the schedule:
// its terminal, transitions and requests (loop_only: an agent is not
// judged by loopsim's loop), and, for a finding, the invariants it broke
// (broke) as its recheck: `simulate agent` plays the file to the agent
// and re-checks them under o's limits.
func (c Case) referenceFile(o Options, name, description string, broke []string) ([]byte, error) {
	s, _, err := c.scenario(o, name, description, placeholder)
	if err != nil {
		return nil, err
	}
	out, err := scenarios.Run(context.Background(), s)
	if err != nil {
		return nil, fmt.Errorf("wirecheck: the reference loop on the case: %w", err)
	}
	exp := expectation{terminal: string(out.Got.Terminal), halted: out.Got.Halted,
		requests: strings.Join(scenarios.TraceRequests(out.Result.Trace), " → "), broke: broke}
	for _, tr := range out.Got.Transitions {
		exp.transitions = append(exp.transitions, string(tr))
	}
	_, text, err := c.scenario(o, name, description, exp)
	return text, err
}

// stepJSON is a step as a flow mapping (JSON, which YAML reads), a
// step that repeats forever written as the loader reads it.
func stepJSON(s fakemodel.Step) string {
	return strings.Replace(jsonText(s), `"repeat":-1`, `"repeat":"forever"`, 1)
}

// jsonText is v as JSON text, without HTML escapes.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// only plain data is written here
		return fmt.Sprintf("%q", fmt.Sprint(v))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
