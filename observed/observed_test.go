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

func loadCase(t *testing.T, c observed.Case) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.LoadFile(filepath.Join(casesDir, c.Name+".yaml"))
	require.NoError(t, err)
	return s
}

// Re-record every observation against an installed agent (opt-in):
//
//	LOOPSIM_AGENT_CMD=/opt/claude-code/node_modules/.bin/claude go test ./observed -run Record -update -v -timeout 30m
//
// Without -update the new observation must equal the recorded one.
func TestRecord(t *testing.T) {
	command := os.Getenv(observed.AgentEnv)
	if command == "" {
		t.Skip(observed.AgentEnv + " is not set: recording needs an installed agent")
	}
	cases, err := observed.LoadCases(casesDir)
	require.NoError(t, err)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			s := loadCase(t, c)
			got, err := observed.Record(t.Context(), command, c, s)
			require.NoError(t, err)
			path := filepath.Join(observedDir, c.Name+".json")
			if *update {
				require.NoError(t, observed.WriteObservation(path, got))
				return
			}
			want, err := observed.ReadObservation(path)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

// Every case has a recorded observation, and its scenario runs in process
// as it expects.
func TestCasesAreRecorded(t *testing.T) {
	cases, err := observed.LoadCases(casesDir)
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			assert.NotEmpty(t, c.Question)
			assert.NotEmpty(t, c.Answer)
			o, err := observed.ReadObservation(filepath.Join(observedDir, c.Name+".json"))
			require.NoError(t, err)
			assert.Equal(t, observed.AgentVersion, o.Agent)
			assert.Len(t, o.Labels, len(o.Requests))
			out, err := scenarios.Run(t.Context(), loadCase(t, c))
			require.NoError(t, err)
			assert.True(t, out.Passed(), "the scenario in process: %s", out.Diff())
		})
	}
}

// The claude-code profile makes the requests the agent made: the same
// answers in the same order, the same max_tokens, streaming or not, and the same number of
// messages in each main request (in a compaction request the agent
// appends its instruction to the last user message where the loop adds a
// message of its own, so the loop's count is one more). Where it does not
// yet, the case says why (differs), and the test checks that it still
// differs, so the note cannot outlive the difference.
func TestProfileAgrees(t *testing.T) {
	cases, err := observed.LoadCases(casesDir)
	require.NoError(t, err)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			o, err := observed.ReadObservation(filepath.Join(observedDir, c.Name+".json"))
			require.NoError(t, err)
			out, err := scenarios.Run(t.Context(), loadCase(t, c))
			require.NoError(t, err)
			var agent []string
			for _, r := range o.Requests {
				agent = append(agent, fmt.Sprintf("%s/%d/%d/%s", r.Purpose[:1], r.MaxTokens, len(r.Roles), streaming(!r.Stream))+"/"+r.Answer)
			}
			var profile []string
			reqs := out.Result.Trace.Requests()
			labels := requestLabels(out.Result.Trace)
			require.Len(t, labels, len(reqs))
			for i, r := range reqs {
				n := r.Messages
				if r.Purpose == loop.PurposeCompact {
					n--
				}
				profile = append(profile, fmt.Sprintf("%s/%d/%d/%s", string(r.Purpose)[:1], r.MaxTokens, n, streaming(r.NonStreaming))+"/"+labels[i])
			}
			if c.Differs != "" {
				assert.NotEqual(t, agent, profile, "listed as differing (%s), but the profile now agrees: drop differs", c.Differs)
				return
			}
			assert.Equal(t, agent, profile, "purpose/max_tokens/messages/streaming/answer: agent (-) vs claude-code profile (+)")
		})
	}
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
