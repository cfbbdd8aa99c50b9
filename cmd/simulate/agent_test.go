package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
)

const library = "../../scenarios/library/"

var (
	agentOnce sync.Once
	agentBin  string
	agentErr  error
)

// removeTestAgent removes the built agent when the tests end, then exits
// with their status (goleak.Cleanup).
func removeTestAgent(code int) {
	if agentBin != "" {
		_ = os.RemoveAll(filepath.Dir(agentBin))
	}
	os.Exit(code)
}

// testAgent builds the small Go agent of scenarios/testdata/agent once.
func testAgent(t *testing.T) string {
	t.Helper()
	agentOnce.Do(func() {
		dir, err := os.MkdirTemp("", "loopsim-cli-agent-")
		if err != nil {
			agentErr = err
			return
		}
		agentBin = filepath.Join(dir, "agent")
		if out, err := exec.Command("go", "build", "-o", agentBin, "../../scenarios/testdata/agent").CombinedOutput(); err != nil {
			agentErr = err
			t.Log(string(out))
		}
	})
	require.NoError(t, agentErr)
	return agentBin
}

func TestAgentCommandPasses(t *testing.T) {
	bin := testAgent(t)
	code, out, errOut := runCLI(t, "agent", "--cmd", bin, library+"cc-truncation-recovery.yaml", library+"cc-wire-answers-by-purpose.yaml")
	assert.Equal(t, exitPass, code, errOut)
	assert.Contains(t, out, "PASS           cc-truncation-recovery                   exit 0   success                  M:trunc ×2 M:text\n"+
		"               compared: expect.wire.requests, expect.wire.result, expect.counters.requests, expect.counters.largest_max_tokens\n")
	assert.Contains(t, out, "PASS           cc-wire-answers-by-purpose")
	assert.Contains(t, out, "2 passed, 0 failed\n")
}

func TestAgentCommandFailsWithADiff(t *testing.T) {
	bin := testAgent(t)
	dir := t.TempDir()
	code, out, _ := runCLI(t, "agent", "--cmd", bin+" -mode unpaired", "-records", dir, library+"cc-max-turns-3.yaml")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, out, "FAIL           cc-max-turns-3                           exit 1   error_during_execution   M:tool M:rejected\n"+
		"               not applied: max_turns (the agent ran at its own setting: the scenario does not judge it)\n"+
		"               compared: expect.wire.requests, expect.wire.result, expect.counters.requests\n"+
		"               departed:\n"+
		"                 expect.wire.requests:\n"+
		"                   want M:tool ×3\n"+
		"                   got  M:tool M:rejected\n")
	assert.Contains(t, out, "`tool_use` ids were found without `tool_result` blocks")
	f, err := os.Open(filepath.Join(dir, "cc-max-turns-3.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	recs, err := wire.ReadJSONL(f)
	require.NoError(t, err)
	assert.Equal(t, []string{"M:tool", "M:rejected"}, wire.Labels(recs))
}

// TestAgentCommandMarks: a run compared on nothing says so, and so does
// one whose policy did not reach the agent; neither fails the command.
func TestAgentCommandMarks(t *testing.T) {
	bin := testAgent(t)
	dir := t.TempDir()
	loopOnly := filepath.Join(dir, "loop-only.yaml")
	require.NoError(t, os.WriteFile(loopOnly, []byte(`name: loop-only
description: one reply; the request count is the loop's
profile: claude-code
conversation: [{role: user, text: hi}]
script: [{text: done}]
expect: {terminal: completed, transitions: [], counters: {requests: 1, turns: 1}, loop_only: [requests]}
`), 0o644))
	code, out, errOut := runCLI(t, "agent", "--cmd", bin, loopOnly, library+"cc-max-turns-3.yaml")
	assert.Equal(t, exitPass, code, errOut)
	assert.Contains(t, out, "RAN            loop-only                                exit 0   success                  M:text\n"+
		"               ran, nothing expected: nothing the scenario expects is on the wire; not compared: "+
		"expect.terminal, expect.counters.turns (the loop's own: not on the wire); expect.counters.requests (loop_only)\n")
	// max_turns 3 never reached the test agent, which stops after 50
	// requests of its own: what the comparison found is shown, not judged
	assert.Contains(t, out, "NOT APPLIED    cc-max-turns-3                           exit 1   error_max_turns          M:tool ×50\n"+
		"               not applied: max_turns (the agent ran at its own setting: the scenario does not judge it)\n"+
		"               compared: expect.wire.requests, expect.wire.result, expect.counters.requests\n"+
		"               departed:\n"+
		"                 expect.wire.requests:\n"+
		"                   want M:tool ×3\n"+
		"                   got  M:tool ×50\n")
	assert.Contains(t, out, "0 passed, 0 failed, 1 ran with nothing expected, 1 not applied\n")
}

func TestAgentCommandJSON(t *testing.T) {
	bin := testAgent(t)
	code, out, _ := runCLI(t, "agent", "--json", "--cmd", bin, library+"cc-truncation-recovery.yaml")
	require.Equal(t, exitPass, code)
	var v agentVerdict
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(out)), &v))
	assert.Equal(t, "pass", v.Verdict)
	assert.Equal(t, []string{"expect.wire.requests", "expect.wire.result", "expect.counters.requests", "expect.counters.largest_max_tokens"}, v.Compared)
	assert.Equal(t, []string{"expect.terminal, expect.transitions, expect.counters.recovery_nudges, expect.counters.escalations (the loop's own: not on the wire)"}, v.NotCompared)
	assert.Equal(t, "success", v.Result)
	assert.Equal(t, []string{"M:trunc", "M:trunc", "M:text"}, v.Requests)
	require.Len(t, v.Records, 3)
	assert.Equal(t, 128000, v.Records[0].MaxTokens)
}

func TestAgentCommandErrors(t *testing.T) {
	bin := testAgent(t)
	code, out, _ := runCLI(t, "agent", "--cmd", bin+" -mode hang", "-timeout", "300ms", library+"cc-truncation-recovery.yaml")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, out, "ERROR          cc-truncation-recovery")
	assert.Contains(t, out, "0 passed, 0 failed, 1 not judged\n")
	assert.Contains(t, out, "did not finish within 300ms (0 requests)")

	code, _, errOut := runCLI(t, "agent", library+"cc-truncation-recovery.yaml")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "--cmd is required")

	code, _, errOut = runCLI(t, "agent", "--cmd", "true", "no/such/file.yaml")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "no/such/file.yaml")
}

func TestServeCommand(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	old := serveSignals
	serveSignals = func() (<-chan os.Signal, func()) { return sigs, func() {} }
	defer func() { serveSignals = old }()

	records := filepath.Join(t.TempDir(), "records.jsonl")
	r, w := io.Pipe()
	var errOut strings.Builder
	done := make(chan int)
	go func() {
		done <- dispatch([]string{"serve", "-records", records, library + "cc-truncation-recovery.yaml"}, w, &errOut)
		w.Close()
	}()
	line, err := bufio.NewReader(r).ReadString('\n')
	require.NoError(t, err)
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "ANTHROPIC_BASE_URL=")
	require.True(t, ok, line)
	go io.Copy(io.Discard, r) //nolint:errcheck // drain

	resp, err := http.Post(url+"/v1/messages", "application/json",
		strings.NewReader(`{"model":"opus","max_tokens":1000,"messages":[{"role":"user","content":"go"}]}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)

	sigs <- os.Interrupt
	select {
	case code := <-done:
		assert.Equal(t, exitPass, code, errOut.String())
	case <-time.After(10 * time.Second):
		require.FailNow(t, "serve did not stop on interrupt")
	}
	assert.Contains(t, errOut.String(), "serve: 1 requests: [M:trunc]")
	assert.Contains(t, errOut.String(), "serve: messages", "the APIs it speaks")
	data, err := os.ReadFile(records)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"answer":"trunc"`)
}

func TestServeCommandWithTheWorkload(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	old := serveSignals
	serveSignals = func() (<-chan os.Signal, func()) { return sigs, func() {} }
	defer func() { serveSignals = old }()
	r, w := io.Pipe()
	var errOut strings.Builder
	done := make(chan int)
	go func() {
		done <- dispatch([]string{"serve", "-seed", "7"}, w, &errOut)
		w.Close()
	}()
	line, err := bufio.NewReader(r).ReadString('\n')
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(line, "ANTHROPIC_BASE_URL=http://127.0.0.1:"), line)
	go io.Copy(io.Discard, r) //nolint:errcheck // drain
	sigs <- os.Interrupt
	assert.Equal(t, exitPass, <-done, errOut.String())

	code, _, errText := runCLI(t, "serve", "-model", "nope")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errText, `unknown model "nope"`)
}
