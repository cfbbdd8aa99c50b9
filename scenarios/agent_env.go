package scenarios

import (
	"os"

	"github.com/loopsim/loopsim/fakemodel/fakeapi"
)

// AgentBaseEnv names the variables of this process's environment that an
// agent command gets unless [Agent.InheritEnv] is set: what a process
// needs to start and find its programs, nothing that configures an agent.
// An agent's policy can depend on its environment (the released Claude
// Code agent keeps retrying after the third 529 in a row with IS_SANDBOX
// set, and asks for CLAUDE_CODE_MAX_OUTPUT_TOKENS instead of its model's
// maximum), and a scenario's verdict must not depend on the shell it was
// run from. HOME is passed: an agent that reads its settings from it (Claude
// Code's ~/.claude) is best given a temporary one by its wrapper.
var AgentBaseEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TZ", "LANG", "LC_ALL", "LC_CTYPE", "TERM"}

// environ is the command's environment: the base (or, with InheritEnv,
// this process's whole environment), then a.Env, then every API's
// variables for the server (fakeapi.ClientEnv: its base URL and a dummy
// key, ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY for the Messages API)
// the scenario's name and its prompt (LOOPSIM_PROMPT: the text of its
// first message, which a preset's command passes to the agent), which
// override both.
func (a Agent) environ(baseURL, scenario, prompt string) []string {
	var env []string
	if a.InheritEnv {
		env = os.Environ()
	} else {
		for _, name := range AgentBaseEnv {
			if v, ok := os.LookupEnv(name); ok {
				env = append(env, name+"="+v)
			}
		}
	}
	env = append(append(env, a.Env...), fakeapi.ClientEnv(baseURL)...)
	return append(env, "LOOPSIM_SCENARIO="+scenario, "LOOPSIM_PROMPT="+prompt)
}

// prompt is what an agent is asked: the text of the scenario's first
// message (the user's).
func (s *Scenario) prompt() string {
	if len(s.Conversation) == 0 {
		return ""
	}
	return s.Conversation[0].Text
}
