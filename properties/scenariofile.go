package properties

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// ScenarioFile writes case c as a scenario file (YAML, as the scenarios
// package loads it) named name whose expectation is what the
// run does now: its terminal (or halt), transitions and violated
// invariants.
func ScenarioFile(name, description, source string, c Case) (string, error) {
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
func writeScenarioHead(b *strings.Builder, name, description, source string, c Case) {
	fmt.Fprintf(b, "name: %s\ndescription: >\n  %s\nsource: %s\nprofile: %s\n", name, description, source, c.Policy.Name)
	if d := PolicyDiff(c.Policy); len(d) > 0 {
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
func writeScenarioPlay(b *strings.Builder, c Case) error {
	b.WriteString("conversation:\n")
	for _, m := range c.Initial {
		line, err := conversationMessage(m)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "  - %s\n", line)
	}
	b.WriteString("tool_names: [" + strings.Join(ToolNames(), ", ") + "]\n")
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
func writeScenarioExpect(b *strings.Builder, r Run) {
	b.WriteString("expect:\n")
	if r.Result.Halted {
		b.WriteString("  halted: true\n")
	} else {
		fmt.Fprintf(b, "  terminal: %s\n", r.Result.Terminal)
	}
	fmt.Fprintf(b, "  transitions: [%s]\n", strings.Join(runLengths(r.Result.Trace.Transitions()), ", "))
	var violated []string
	for _, v := range Check(r) {
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
