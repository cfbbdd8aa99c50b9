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
	assert.Equal(t, "expect.wire.requests:\n  want M:tool ×3\n  got  M:tool M:rejected\n  from entry 2 of 2 (3 wanted): want M:tool, got M:rejected\n"+
		"expect.wire.result: want error_max_turns, got error_during_execution\n"+
		"expect.counters.requests: want 3, got 2\n"+
		"requests the API refused (want none):\n"+
		"  request 2: messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.\n",
		out.Diff())
	assert.Equal(t, 1, out.Exit)
	assert.Equal(t, scenarios.MarkFail, out.Mark(), "a refused request fails, policy applied or not")
	assert.Equal(t, []string{"max_turns"}, out.NotApplied)
}

// TestAgentMarks: a verdict says what it compared. PASS needs something
// the wire shows; a scenario that expects only the loop's own state (or
// keeps the rest loop_only) gets "nothing expected"; a policy override
// the agent did not take gets "not applied".
func TestAgentMarks(t *testing.T) {
	bin := testAgent(t)
	const head = `name: marks
description: one reply
profile: claude-code
conversation: [{role: user, text: hi}]
script: [{text: done}]
`
	cases := []struct {
		name, src   string
		mark        scenarios.Mark
		compared    []string
		notCompared []string
	}{
		{"counters on the wire", head + "expect: {terminal: completed, transitions: [], counters: {turns: 1, requests: 1}}\n",
			scenarios.MarkPass, []string{"expect.counters.requests"},
			[]string{"expect.terminal, expect.counters.turns (the loop's own: not on the wire)"}},
		{"wire and counters", head + "expect: {terminal: completed, transitions: [], counters: {requests: 1, retries: 0}, wire: {requests: M:text, result: success, exit: 0}}\n",
			scenarios.MarkPass, []string{"expect.wire.requests", "expect.wire.result", "expect.wire.exit", "expect.counters.requests", "expect.counters.retries"},
			[]string{"expect.terminal (the loop's own: not on the wire)"}},
		{"only the loop's own", head + "expect: {terminal: completed, transitions: [], counters: {turns: 1}}\n",
			scenarios.MarkNothingExpected, nil, []string{"expect.terminal, expect.counters.turns (the loop's own: not on the wire)"}},
		{"loop only", head + "expect: {terminal: completed, transitions: [], counters: {requests: 1}, wire: {requests: M:text}, loop_only: [requests, wire]}\n",
			scenarios.MarkNothingExpected, nil,
			[]string{"expect.terminal (the loop's own: not on the wire)", "expect.counters.requests, expect.wire (loop_only)"}},
		{"a counter that departs", head + "expect: {terminal: completed, transitions: [], counters: {requests: 2}}\n",
			scenarios.MarkFail, []string{"expect.counters.requests"}, []string{"expect.terminal (the loop's own: not on the wire)"}},
		{"a policy not taken", head + "policy: {max_turns: 3}\nexpect: {terminal: completed, transitions: [], counters: {requests: 2}}\n",
			scenarios.MarkNotApplied, []string{"expect.counters.requests"}, []string{"expect.terminal (the loop's own: not on the wire)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := scenarios.Parse("marks.yaml", []byte(c.src))
			require.NoError(t, err)
			out, err := scenarios.RunAgent(context.Background(), s, scenarios.Agent{Command: bin, Timeout: 30 * time.Second})
			require.NoError(t, err)
			assert.Equal(t, c.mark, out.Mark(), "diff:\n%s", out.Diff())
			assert.Equal(t, c.compared, out.Compared())
			assert.Equal(t, c.notCompared, out.NotCompared())
		})
	}
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
