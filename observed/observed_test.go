package observed_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/observed"
	"github.com/loopsim/loopsim/scenarios"
)

var update = flag.Bool("update", false, "rewrite the observations recorded against the agent")

const (
	casesDir    = "testdata/cases"
	observedDir = "testdata/observed"
)

// suite is one observed agent's cases and observations: Claude Code's at
// the top of testdata/cases and testdata/observed, every other agent's in
// a folder named for it.
type suite struct {
	agent string
	// api is the wire API the agent speaks (its preset's).
	api string
	// sub is the agent's folder under testdata/cases and
	// testdata/observed, empty for Claude Code.
	sub string
}

// suites are the observed agents.
var suites = []suite{{agent: observed.ClaudeCode, api: "messages"}, {agent: observed.Codex, api: "responses", sub: "codex"}}

func (s suite) cases() string    { return filepath.Join(casesDir, s.sub) }
func (s suite) observed() string { return filepath.Join(observedDir, s.sub) }

// run runs f per case of the suite, as subtests named CASE (Claude Code)
// or AGENT/CASE.
func (s suite) run(t *testing.T, f func(t *testing.T, c observed.Case)) {
	t.Helper()
	cases, err := observed.LoadCases(s.cases())
	require.NoError(t, err)
	require.NotEmpty(t, cases, "no case of %s", s.agent)
	each := func(t *testing.T) {
		for _, c := range cases {
			require.Equal(t, s.agent, c.AgentName(), "%s: a case in %s must name its agent", c.Name, s.cases())
			t.Run(c.Name, func(t *testing.T) { f(t, c) })
		}
	}
	if s.sub == "" {
		each(t)
		return
	}
	t.Run(s.sub, each)
}

func (s suite) load(t *testing.T, c observed.Case) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.LoadFile(filepath.Join(s.cases(), c.Name+".yaml"))
	require.NoError(t, err)
	return sc
}

func (s suite) observation(t *testing.T, c observed.Case) *observed.Observation {
	t.Helper()
	o, err := observed.ReadObservation(filepath.Join(s.observed(), c.Name+".json"))
	require.NoError(t, err)
	return o
}

// Re-record observations against an installed agent (opt-in); the
// command's --version says which agent's cases run, the others' are
// skipped:
//
//	LOOPSIM_AGENT_CMD=/opt/claude-code/node_modules/.bin/claude go test ./observed -run Record -update -v -timeout 30m
//	LOOPSIM_AGENT_CMD=/opt/agents/openai-codex-0.169.0/node_modules/.bin/codex go test ./observed -run 'TestRecord/codex/CASE' -count=1 -update
//
// Without -update the new observation must equal the recorded one, each
// request's delay within a tolerance (delayTolerance).
// Claude Code's cases run side by side; Codex's one at a time (its
// back-offs are timed, and it is CPU heavy).
func TestRecord(t *testing.T) {
	command := os.Getenv(observed.AgentEnv)
	if command == "" {
		t.Skip(observed.AgentEnv + " is not set: recording needs an installed agent")
	}
	for _, s := range suites {
		version, err := observed.VersionOf(s.agent)
		require.NoError(t, err)
		if err := observed.CheckVersion(t.Context(), command, version); err != nil {
			t.Logf("%s cases skipped: %v", s.agent, err)
			continue
		}
		s.run(t, func(t *testing.T, c observed.Case) {
			if s.agent == observed.ClaudeCode {
				t.Parallel()
			}
			got, err := observed.Record(t.Context(), command, c, s.load(t, c))
			require.NoError(t, err)
			path := filepath.Join(s.observed(), c.Name+".json")
			if *update {
				require.NoError(t, os.MkdirAll(s.observed(), 0o755))
				require.NoError(t, observed.WriteObservation(path, got))
				return
			}
			want, err := observed.ReadObservation(path)
			require.NoError(t, err)
			wantDelays, gotDelays := takeDelays(want), takeDelays(got)
			assert.Equal(t, want, got)
			require.Len(t, gotDelays, len(wantDelays))
			for i := range wantDelays {
				assert.InDelta(t, wantDelays[i], gotDelays[i], delayTolerance(wantDelays[i]), "request %d: the delay before it (ms)", i+1)
			}
		})
	}
}

// takeDelays removes the requests' delays from o and returns them: they
// are measured on a clock, so a new recording matches the recorded one
// only within delayTolerance.
func takeDelays(o *observed.Observation) []float64 {
	out := make([]float64, len(o.Requests))
	for i := range o.Requests {
		out[i] = float64(o.Requests[i].DelayMS)
		o.Requests[i].DelayMS = 0
	}
	return out
}

// delayTolerance is how far a re-recorded delay may be from the recorded
// one, in ms: the agent's jitter (a tenth either way for Codex) and the
// machine's load, at least 300 ms.
func delayTolerance(ms float64) float64 { return max(300, ms/4) }

// Every case has a recorded observation of its agent's version, and its
// scenario runs in process as it expects.
func TestCasesAreRecorded(t *testing.T) {
	for _, s := range suites {
		version, err := observed.VersionOf(s.agent)
		require.NoError(t, err)
		s.run(t, func(t *testing.T, c observed.Case) {
			assert.NotEmpty(t, c.Question)
			assert.NotEmpty(t, c.Answer)
			o := s.observation(t, c)
			assert.Equal(t, version, o.Agent)
			assert.Len(t, o.Labels, len(o.Requests))
			out, err := scenarios.Run(t.Context(), s.load(t, c))
			require.NoError(t, err)
			assert.True(t, out.Passed(), "the scenario in process: %s", out.Diff())
		})
	}
}

// Each agent's profile makes the requests the agent made: the same
// answers in the same order (a status as the agent's API writes it),
// streaming or not, and the same number of messages in each request (in
// a compaction request the agent's instruction joins the last user
// message, Claude Code's as a block of it, Codex's as an item the server
// groups with the tool results before it, where the loop adds a message
// of its own, so the loop's count is one more). For Claude Code also the
// same max_tokens. Codex names no output cap, and begins every
// conversation with a message of its own (its environment) before the
// prompt: its counts are compared as the growth from its first request. Where the
// profile does not agree yet, the case says why (differs), and the test
// checks that it still differs, so the note cannot outlive the
// difference.
func TestProfileAgrees(t *testing.T) {
	for _, s := range suites {
		s.run(t, func(t *testing.T, c observed.Case) {
			o := s.observation(t, c)
			out, err := scenarios.Run(t.Context(), s.load(t, c))
			require.NoError(t, err)
			reqs := out.Result.Trace.Requests()
			labels := requestLabels(out.Result.Trace)
			require.Len(t, labels, len(reqs))
			require.NotEmpty(t, o.Requests)
			require.NotEmpty(t, reqs)
			var agent, profile []string
			for _, r := range o.Requests {
				agent = append(agent, s.key(r.Purpose, r.MaxTokens, len(r.Roles)-s.base(len(o.Requests[0].Roles)), !r.Stream, r.Answer))
			}
			for i, r := range reqs {
				n := r.Messages
				if r.Purpose == loop.PurposeCompact {
					n--
				}
				profile = append(profile, s.key(string(r.Purpose), r.MaxTokens, n-s.base(reqs[0].Messages), r.NonStreaming, scenarios.AnswerOn(s.api, labels[i])))
			}
			if c.Differs != "" {
				assert.NotEqual(t, agent, profile, "listed as differing (%s), but the profile now agrees: drop differs", c.Differs)
				return
			}
			assert.Equal(t, agent, profile, "%s: agent (-) vs %s profile (+)", s.keyName(), s.agent)
		})
	}
}

// key is one request as the profile check compares it.
func (s suite) key(purpose string, maxTokens, messages int, nonStreaming bool, answer string) string {
	if s.agent == observed.ClaudeCode {
		return fmt.Sprintf("%s/%d/%d/%s/%s", purpose[:1], maxTokens, messages, streaming(nonStreaming), answer)
	}
	return fmt.Sprintf("%s/%+d/%s/%s", purpose[:1], messages, streaming(nonStreaming), answer)
}

// keyName names key's parts.
func (s suite) keyName() string {
	if s.agent == observed.ClaudeCode {
		return "purpose/max_tokens/messages/streaming/answer"
	}
	return "purpose/messages since the first request/streaming/answer"
}

// base is what a request's message count is compared from: nothing for
// Claude Code, the first request's count for the others.
func (s suite) base(first int) int {
	if s.agent == observed.ClaudeCode {
		return 0
	}
	return first
}

// requestLabels is each request's answer as the server labels it.
func requestLabels(t loop.Trace) []string {
	var out []string
	for _, l := range scenarios.TraceRequests(t) {
		if _, answer, ok := strings.Cut(l, ":"); ok && (l[0] == 'M' || l[0] == 'C') {
			out = append(out, answer)
		}
	}
	return out
}

// streaming names a request's form.
func streaming(nonStreaming bool) string {
	if nonStreaming {
		return "non-streaming"
	}
	return "stream"
}
