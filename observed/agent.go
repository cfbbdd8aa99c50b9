package observed

import (
	"context"
	"fmt"

	"github.com/loopsim/loopsim/agents"
)

// The agents whose behaviour is observed, by their preset's name (package
// agents).
const (
	// ClaudeCode is the released Claude Code agent, run its own way (see
	// runClaude); a case without an agent is one of its.
	ClaudeCode = "claude-code"
	// Codex is the released Codex CLI, run through its preset.
	Codex = "codex"
)

// Agents are the observed agents, in order.
func Agents() []string { return []string{ClaudeCode, Codex} }

// runOutput is what one run of an agent left: its standard output and
// exit status.
type runOutput struct {
	out  []byte
	exit int
}

// agent is how one released agent is run on a case and how its final
// report is read.
type agent struct {
	version string
	// run runs the agent on prompt against the server at baseURL,
	// naming its temporary folder through setTemp before it starts.
	run func(ctx context.Context, argv []string, c Case, prompt, baseURL string, setTemp func(string)) (runOutput, error)
	// result reads the agent's final report from its output.
	result func(out []byte) (Result, error)
}

// agentOf is the agent case c observes.
func agentOf(c Case) (agent, error) {
	switch c.AgentName() {
	case ClaudeCode:
		return agent{version: AgentVersion, run: runClaude, result: lastResult}, nil
	case Codex:
		p, err := agents.Lookup(Codex)
		if err != nil {
			return agent{}, fmt.Errorf("observed: case %s: %w", c.Name, err)
		}
		return agent{version: p.Version, run: presetRunner(p), result: codexResult}, nil
	}
	return agent{}, fmt.Errorf("observed: case %s: no observed agent %q (known: %v)", c.Name, c.Agent, Agents())
}

// VersionOf is the released version of an observed agent the
// observations are of.
func VersionOf(name string) (string, error) {
	ag, err := agentOf(Case{Name: "-", Agent: name})
	if err != nil {
		return "", err
	}
	return ag.version, nil
}
