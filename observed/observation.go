package observed

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// AgentVersion is the released Claude Code agent its observations were
// recorded with (Codex's is its preset's, [VersionOf]).
const AgentVersion = "2.1.332"

// AgentEnv names the environment variable that holds the command running
// the installed agent (for example /opt/claude-code/node_modules/.bin/claude);
// without it the recording test is skipped.
const AgentEnv = "LOOPSIM_AGENT_CMD"

// Case is how one observation is made.
type Case struct {
	// Name names the case; its scenario is NAME.yaml beside the case file
	// (testdata/cases, testdata/cases/codex) and its observation NAME.json
	// in the agent's folder of testdata/observed.
	Name string `json:"name"`
	// Agent is the observed agent ([Agents]): claude-code when empty, or
	// codex, run through its preset.
	Agent string `json:"agent,omitempty"`
	// Question is the open point the case settles.
	Question string `json:"question"`
	// Answer is what the agent did, in words.
	Answer string `json:"answer"`
	// Prompt is the agent's prompt; empty means the scenario's first
	// message.
	Prompt string `json:"prompt,omitempty"`
	// Args are further command-line arguments: Claude Code's after -p
	// PROMPT --output-format stream-json --verbose; Codex's before the
	// prompt (-c key=value overrides of its config, -m MODEL).
	Args []string `json:"args,omitempty"`
	// Env are further KEY=VALUE environment entries.
	Env []string `json:"env,omitempty"`
	// Settings, if set, is Claude Code's settings.json (hooks), or
	// Codex's hooks.json (written to its CODEX_HOME; the case's args then
	// give --dangerously-bypass-hook-trust, as hooks are trusted only
	// after review).
	Settings json.RawMessage `json:"settings,omitempty"`
	// Differs, when set, says why the agent's profile in process does
	// not produce the agent's request sequence for this case (a
	// behaviour the profile does not model yet).
	Differs string `json:"differs,omitempty"`
}

// AgentName is the case's agent: claude-code unless it names another.
func (c Case) AgentName() string {
	if c.Agent == "" {
		return ClaudeCode
	}
	return c.Agent
}

// Observation is what the agent did in one case, normalized.
type Observation struct {
	// Agent is the agent's version.
	Agent string `json:"agent"`
	// Labels are the requests in the profile's notation (M:tool, C:text,
	// M:429, ...).
	Labels []string `json:"labels"`
	// Requests are the requests, in order.
	Requests []Request `json:"requests"`
	// Result is the agent's final report.
	Result Result `json:"result"`
}

// Request is one request, normalized.
type Request struct {
	Seq       int    `json:"seq"`
	Purpose   string `json:"purpose"`
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	Stream    bool   `json:"stream"`
	// Roles is u or a per message (role "system" messages count with
	// the system prompt, not here).
	Roles  string `json:"roles"`
	Tools  int    `json:"tools"`
	Answer string `json:"answer"`
	// Carried says, per message, "R.I" when message I of request R
	// (both from 1) was the same, or "+shape" for a message no earlier
	// request carried (role and block types).
	Carried []string `json:"carried"`
	// Sizes is each message's size in bytes: its content as compact JSON
	// with keys sorted and cache_control markers removed (what Carried
	// hashes), so that compaction rules can be weighed against sizes.
	Sizes []int `json:"sizes,omitempty"`
	// DelayMS is the time from the previous request's arrival to this
	// one's on the server's clock, rounded to [DelayStepMS]: a
	// measurement of the agent's back-off (its jitter included), recorded
	// for the agents after Claude Code.
	DelayMS int `json:"delay_ms,omitempty"`
}

// DelayStepMS is what a request's delay is rounded to.
const DelayStepMS = 100

// Result is the agent's final report and its exit status: for Claude
// Code the last {"type":"result"} line of its stream-json output; for
// Codex its `exec --json` events (the last one's type as the subtype, its
// turns and retry notices).
type Result struct {
	Subtype        string `json:"subtype"`
	TerminalReason string `json:"terminal_reason,omitempty"`
	IsError        bool   `json:"is_error"`
	NumTurns       int    `json:"num_turns"`
	// Empty says the result text was empty.
	Empty bool `json:"empty"`
	// Notices counts the agent's own retry notices (Codex's top-level
	// error events, "Reconnecting... n/m"); Claude Code's are not read.
	Notices int `json:"notices,omitempty"`
	Exit    int `json:"exit"`
}

// LoadCases reads every case file of dir (NAME.case.json).
func LoadCases(dir string) ([]Case, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.case.json"))
	if err != nil {
		return nil, err
	}
	var out []Case
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var c Case
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if want := strings.TrimSuffix(filepath.Base(p), ".case.json"); c.Name != want {
			return nil, fmt.Errorf("%s: name %q is not the file's name %q", p, c.Name, want)
		}
		out = append(out, c)
	}
	return out, nil
}

// ReadObservation reads an observation file.
func ReadObservation(path string) (*Observation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var o Observation
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &o, nil
}

// WriteObservation writes o as indented JSON.
func WriteObservation(path string, o *Observation) error {
	data, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
