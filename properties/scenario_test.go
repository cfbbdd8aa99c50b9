package properties_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/properties"
	"github.com/loopsim/loopsim/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// findingScenarios are the minimal counterexamples of the known findings
// (testdata/findings/*.json, found and shrunk by TestKnownFindings) as
// scenario files, and the same with the fix.
var findingScenarios = []struct {
	fixture, finding, source string
}{
	{"seed_unbounded_stop_hook_blocks", properties.FindingUnboundedStopHookBlocks, "SPEC §5 (termination); found and shrunk by properties.TestKnownFindings"},
	{"seed_escalation_after_recovery", properties.FindingEscalationAfterRecovery, "SPEC §5 (escalate once); found and shrunk by properties.TestKnownFindings"},
}

// TestFindingScenarios runs the scenario files of the minimal
// counterexamples through the scenarios package: each must show its
// finding, and its fixed twin must keep every invariant. -update rewrites
// them from the fixtures.
func TestFindingScenarios(t *testing.T) {
	update := flag.Lookup("update").Value.String() == "true"
	for _, fs := range findingScenarios {
		t.Run(fs.fixture, func(t *testing.T) {
			finding := findingNamed(t, fs.finding)
			raw, err := os.ReadFile(filepath.Join("testdata", "findings", fs.fixture+".json"))
			require.NoError(t, err)
			c, err := properties.DecodeCase(raw)
			require.NoError(t, err)
			fixed := c
			fixed.Policy = finding.Fix(c.Policy)
			for _, v := range []struct {
				name, description string
				c                 properties.Case
			}{
				{scenarioName(fs.fixture), "Minimal counterexample of the known finding " + finding.Name + ": " + finding.Summary + ".", c},
				{scenarioName(fs.fixture) + "-fixed", "The minimal counterexample of " + finding.Name + " with the policy option that fixes it: every invariant holds.", fixed},
			} {
				path := filepath.Join("testdata", "scenarios", v.name+".yaml")
				if update {
					text, err := scenarioFile(v.name, v.description, fs.source, v.c)
					require.NoError(t, err)
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
				}
				s, err := scenarios.LoadFile(path)
				require.NoError(t, err)
				out, err := scenarios.Run(context.Background(), s)
				require.NoError(t, err)
				assert.True(t, out.Passed(), "%s departs from its expectation (-want +got):\n%s", path, out.Diff())
			}
		})
	}
}

func findingNamed(t *testing.T, name string) properties.Finding {
	t.Helper()
	for _, f := range properties.KnownFindings() {
		if f.Name == name {
			return f
		}
	}
	require.FailNowf(t, "no such finding", "no finding %q", name)
	return properties.Finding{}
}

// scenarioFile writes case c as a scenario whose expectation is what the
// run does now: its terminal (or halt), transitions and violated
// invariants.
func scenarioFile(name, description, source string, c properties.Case) (string, error) {
	r, err := c.Execute()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	writeScenarioHead(&b, name, description, source, c)
	if err := writeScenarioPlay(&b, c); err != nil {
		return "", err
	}
	writeScenarioExpect(&b, r)
	return b.String(), nil
}

// writeScenarioHead writes the scenario's name, description, source,
// profile with its policy changes, models and run bounds.
func writeScenarioHead(b *strings.Builder, name, description, source string, c properties.Case) {
	fmt.Fprintf(b, "name: %s\ndescription: >\n  %s\nsource: %s\nprofile: %s\n", name, description, source, c.Policy.Name)
	if d := properties.PolicyDiff(c.Policy); len(d) > 0 {
		parts := make([]string, len(d))
		for i, kv := range d {
			k, v, _ := strings.Cut(kv, "=")
			parts[i] = k + ": " + v
		}
		fmt.Fprintf(b, "policy: {%s}\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(b, "model: {name: %s, context_window: %d, max_output_tokens: %d}\n", c.Primary.Name, c.Primary.ContextWindow, c.Primary.MaxOutputTokens)
	if c.Fallback.Name != "" {
		fmt.Fprintf(b, "fallback_model: {name: %s, context_window: %d, max_output_tokens: %d}\n", c.Fallback.Name, c.Fallback.ContextWindow, c.Fallback.MaxOutputTokens)
	}
	fmt.Fprintf(b, "iteration_limit: %d\n", c.Limit())
	if c.TokenBudget > 0 {
		fmt.Fprintf(b, "token_budget: %d\n", c.TokenBudget)
	}
	if c.Seed != 0 {
		fmt.Fprintf(b, "seed: %d\n", c.Seed)
	}
}

// writeScenarioPlay writes what the run plays: the conversation, the
// tools offered, the script, the tools' results and the scripted seams.
func writeScenarioPlay(b *strings.Builder, c properties.Case) error {
	b.WriteString("conversation:\n")
	for _, m := range c.Initial {
		line, err := conversationMessage(m)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "  - %s\n", line)
	}
	b.WriteString("tool_names: [" + strings.Join(properties.ToolNames(), ", ") + "]\n")
	b.WriteString("script:\n")
	for _, s := range c.Script {
		line, err := flow(s)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "  - %s\n", line)
	}
	if c.Tools.Default != (fakemodel.Tool{}) || len(c.Tools.ByName) > 0 {
		line, err := flow(c.Tools)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "tools: %s\n", line)
	}
	for _, list := range []struct {
		key string
		v   any
		set bool
	}{{"stop_hooks", c.StopHooks, c.StopHooks != nil}, {"compactor", c.Compactions, c.Compactions != nil}, {"summarizer", c.Summaries, c.Summaries != nil}} {
		if list.set {
			line, err := flow(list.v)
			if err != nil {
				return err
			}
			fmt.Fprintf(b, "%s: %s\n", list.key, line)
		}
	}
	return nil
}

// writeScenarioExpect writes the expectation: what run r does now, its
// terminal (or halt), transitions and violated invariants.
func writeScenarioExpect(b *strings.Builder, r properties.Run) {
	b.WriteString("expect:\n")
	if r.Result.Halted {
		b.WriteString("  halted: true\n")
	} else {
		fmt.Fprintf(b, "  terminal: %s\n", r.Result.Terminal)
	}
	fmt.Fprintf(b, "  transitions: [%s]\n", strings.Join(runLengths(r.Result.Trace.Transitions()), ", "))
	var violated []string
	for _, v := range properties.Check(r) {
		if len(violated) == 0 || violated[len(violated)-1] != v.Invariant {
			violated = append(violated, v.Invariant)
		}
	}
	if len(violated) > 0 {
		fmt.Fprintf(b, "  violated: [%s]\n", strings.Join(violated, ", "))
	}
}

// conversationMessage writes a starting message in the scenario format.
func conversationMessage(m loop.Message) (string, error) {
	out := map[string]any{"role": m.Role}
	if m.ID != "" {
		out["id"] = m.ID
	}
	if m.Tokens != 0 {
		out["tokens"] = m.Tokens
	}
	var uses []fakemodel.ToolUse
	var results []map[string]any
	for _, bl := range m.Blocks {
		switch bl.Type {
		case loop.BlockText:
			out["text"] = bl.Text
		case loop.BlockToolUse:
			uses = append(uses, fakemodel.ToolUse{ID: bl.ID, Name: bl.Name, Input: bl.Input})
		case loop.BlockToolResult:
			results = append(results, map[string]any{"tool_use_id": bl.ToolUseID, "text": bl.Text})
		}
	}
	if uses != nil {
		out["tool_uses"] = uses
	}
	if results != nil {
		out["tool_results"] = results
	}
	return flow(out)
}

// flow writes v as one line of JSON (valid YAML flow style), with a
// repeat of -1 written forever.
func flow(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode %T: %w", v, err)
	}
	return strings.ReplaceAll(string(b), `"repeat":-1`, `"repeat":"forever"`), nil
}

// runLengths writes transitions as the scenario format does, "name * n"
// for n in a row.
func runLengths(ts []loop.Transition) []string {
	var out []string
	for i := 0; i < len(ts); {
		j := i
		for j < len(ts) && ts[j] == ts[i] {
			j++
		}
		if j-i == 1 {
			out = append(out, string(ts[i]))
		} else {
			out = append(out, fmt.Sprintf("%s * %d", ts[i], j-i))
		}
		i = j
	}
	return out
}

// scenarioName spells a fixture's name as scenario names are spelled.
func scenarioName(fixture string) string { return strings.ReplaceAll(fixture, "_", "-") }
