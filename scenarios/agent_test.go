package scenarios_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/scenarios"
)

// testAgent is the small Go agent of testdata/agent, built once.
func testAgent(t *testing.T) string { return scenarios.BuildTestAgent(t) }

func libraryScenario(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.LoadFile(filepath.Join("library", name+".yaml"))
	require.NoError(t, err)
	return s
}

func TestAgentPassesWhatItDoes(t *testing.T) {
	bin := testAgent(t)
	for _, name := range []string{"cc-wire-answers-by-purpose", "cc-truncation-recovery"} {
		t.Run(name, func(t *testing.T) {
			out, err := scenarios.RunAgent(context.Background(), libraryScenario(t, name), scenarios.Agent{Command: bin, Timeout: 30 * time.Second})
			require.NoError(t, err)
			assert.True(t, out.Passed(), "diff:\n%s\nstderr:\n%s", out.Diff(), out.Stderr)
			assert.Equal(t, 0, out.Exit)
			assert.Equal(t, `{"type":"result","subtype":"success"}`, out.LastOutput)
		})
	}
}

func TestAgentFailsWithADiffOfItsRequests(t *testing.T) {
	bin := testAgent(t)
	out, err := scenarios.RunAgent(context.Background(), libraryScenario(t, "cc-max-turns-3"),
		scenarios.Agent{Command: bin + " -mode unpaired", Timeout: 30 * time.Second})
	require.NoError(t, err)
	assert.False(t, out.Passed())
	diff := out.Diff()
	assert.Contains(t, diff, `-`)
	assert.Contains(t, diff, `"M:rejected"`)
	assert.Contains(t, diff, "`tool_use` ids were found without `tool_result` blocks immediately after")
	assert.Contains(t, diff, `"error_during_execution"`)
	assert.Equal(t, 1, out.Exit)
}

func TestAgentThatCannotBeJudged(t *testing.T) {
	bin := testAgent(t)
	s := libraryScenario(t, "cc-truncation-recovery")
	cases := []struct {
		command string
		timeout time.Duration
		msg     string
	}{
		{bin + " -mode hang", 500 * time.Millisecond, "did not finish within 500ms (0 requests); its process group was killed"},
		{bin + " -mode silent", 30 * time.Second, `exited 0 without calling the server (last output: "hello, I call nobody")`},
		{"/nonexistent/agent --flag", 30 * time.Second, "exited 127 without calling the server"},
	}
	for _, c := range cases {
		began := time.Now()
		_, err := scenarios.RunAgent(context.Background(), s, scenarios.Agent{Command: c.command, Timeout: c.timeout})
		var ae *scenarios.AgentError
		require.ErrorAs(t, err, &ae, c.command)
		assert.Contains(t, err.Error(), "scenario cc-truncation-recovery: agent: "+c.msg)
		assert.Less(t, time.Since(began), 10*time.Second, c.command)
	}
}

func TestAgentProcessesAreCleanedUp(t *testing.T) {
	bin := testAgent(t)
	out, err := scenarios.RunAgent(context.Background(), libraryScenario(t, "cc-truncation-recovery"),
		scenarios.Agent{Command: bin + " -mode spawn", Timeout: 30 * time.Second})
	require.NoError(t, err)
	assert.True(t, out.Passed(), out.Diff())
	m := regexp.MustCompile(`child (\d+)`).FindStringSubmatch(readStdout(t, out))
	require.NotNil(t, m, "the agent printed its child's pid")
	pid, _ := strconv.Atoi(m[1])
	assert.Eventually(t, func() bool { return !alive(pid) }, 5*time.Second, 20*time.Millisecond, "the child %d was killed with the group", pid)
}

// readStdout is what the agent printed, as far as the outcome keeps it.
func readStdout(t *testing.T, out *scenarios.AgentOutcome) string {
	t.Helper()
	return out.Stdout
}

// alive reports whether pid is a running process (not gone, not a zombie).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data))
	return len(fields) > 2 && fields[2] != "Z"
}

func TestAgentThatStopsEarlyLeavesTheScriptUnused(t *testing.T) {
	bin := testAgent(t)
	out, err := scenarios.RunAgent(context.Background(), libraryScenario(t, "cc-truncation-recovery"),
		scenarios.Agent{Command: bin + " -requests 1", Timeout: 30 * time.Second})
	require.NoError(t, err)
	assert.False(t, out.Passed())
	assert.Equal(t, []string{"the script was not used up: the agent stopped after 1 requests (script from step 2 of 3 not played)"}, out.Got.Harness)
	assert.Equal(t, "error_max_turns", out.Got.Result)
}

// A step that repeats forever, and a queue that only stands by (the
// compaction's summary of a file check-agent wrote), need not answer
// anything: an agent that stops there used its script up.
func TestAgentNeedNotReachAForeverStep(t *testing.T) {
	bin := testAgent(t)
	s, err := scenarios.Parse("forever.yaml", []byte(`name: forever
description: a reply, then a fault that repeats forever, which the agent never reaches
profile: claude-code
conversation: [{role: user, text: hi}]
answers:
  main:
    - {text: done}
    - {kind: server_error, repeat: forever}
  compact:
    - {text: "<summary>s</summary>", repeat: forever}
expect: {terminal: completed, transitions: []}
`))
	require.NoError(t, err)
	out, err := scenarios.RunAgent(context.Background(), s, scenarios.Agent{Command: bin, Timeout: 30 * time.Second})
	require.NoError(t, err)
	assert.Empty(t, out.Got.Harness)
	assert.Len(t, out.Records, 1)
}
