package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/agents"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/otelexport"
	"github.com/loopsim/loopsim/properties/wirecheck"
)

const wireAnswers = "../../scenarios/library/cc-wire-answers-by-purpose.yaml"

// readOTLP reads an OTLP JSON file and returns the spans' names by
// whether they are roots.
func readOTLP(t *testing.T, path string) (roots, children []string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	td, err := otelexport.ReadOTLPJSON(f)
	require.NoError(t, err)
	for _, rs := range td.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				if len(s.ParentSpanId) == 0 {
					roots = append(roots, s.Name)
				} else {
					children = append(children, s.Name)
				}
			}
		}
	}
	return roots, children
}

// traceEvent is what the tests read of a timeline's trace events.
type traceEvent struct {
	Name string `json:"name"`
	Ph   string `json:"ph"`
	Pid  int    `json:"pid"`
}

// readTimeline reads a timeline file's trace events.
func readTimeline(t *testing.T, path string) []traceEvent {
	t.Helper()
	var timeline struct {
		TraceEvents []traceEvent `json:"traceEvents"`
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &timeline))
	return timeline.TraceEvents
}

func TestRunWritesOTLPAndTimeline(t *testing.T) {
	dir := t.TempDir()
	otlp, tl := filepath.Join(dir, "run.otlp.json"), filepath.Join(dir, "run.timeline.json")
	code, out, errOut := runCLI(t, "run", nextTurn, wireAnswers, "-otlp", otlp, "-timeline", tl)
	require.Equal(t, exitPass, code, "stdout %s stderr %s", out, errOut)
	roots, children := readOTLP(t, otlp)
	assert.Equal(t, []string{"invoke_agent loopsim", "invoke_agent loopsim"}, roots, "one trace per scenario run")
	assert.Contains(t, children, "execute_tool Bash")
	assert.Contains(t, children, "chat claude-sonnet-5-5")

	timeline := readTimeline(t, tl)
	procs := map[int]bool{}
	for _, e := range timeline {
		procs[e.Pid] = true
	}
	assert.Len(t, procs, 2, "one process per scenario run")

	// the same runs give the same files
	otlp2 := filepath.Join(dir, "again.otlp.json")
	code, _, _ = runCLI(t, "run", nextTurn, wireAnswers, "-otlp", otlp2)
	require.Equal(t, exitPass, code)
	a, _ := os.ReadFile(otlp)
	c, _ := os.ReadFile(otlp2)
	assert.Equal(t, string(a), string(c))
}

func TestReplayWritesOTLPAndTimeline(t *testing.T) {
	dir := t.TempDir()
	otlp, tl := filepath.Join(dir, "ep.otlp.json"), filepath.Join(dir, "ep.timeline.json")
	code, out, errOut := runCLI(t, "-profile", "seed", "-replay", "0x1f2e3d", "-otlp", otlp, "-timeline", tl)
	require.Equal(t, simExitOK, code, "stdout %s stderr %s", out, errOut)
	roots, children := readOTLP(t, otlp)
	assert.Equal(t, []string{"invoke_agent loopsim"}, roots)
	assert.NotEmpty(t, children)
	b, err := os.ReadFile(tl)
	require.NoError(t, err)
	assert.True(t, json.Valid(b))

	code, _, errOut = runCLI(t, "matrix", "-from", filepath.Join(dir, "matrix.json"), "-otlp", otlp)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "not with -from")
}

func TestExportFlagsNeedReplay(t *testing.T) {
	for _, flag := range []string{"-otlp", "-otlp-endpoint", "-timeline"} {
		code, _, errOut := runCLI(t, "-n", "1", flag, "x")
		assert.Equal(t, simExitBadInput, code, flag)
		assert.Contains(t, errOut, "-replay", flag)
	}
}

func TestRunOTLPUnwritable(t *testing.T) {
	code, _, errOut := runCLI(t, "run", nextTurn, "-otlp", filepath.Join(t.TempDir(), "no", "such", "dir", "x.json"))
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "-otlp")
}

func TestRunOTLPEndpoint(t *testing.T) {
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/v1/traces" {
			posts.Add(1)
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	code, out, errOut := runCLI(t, "run", wireAnswers, "-otlp-endpoint", srv.URL)
	require.Equal(t, exitPass, code, "stdout %s stderr %s", out, errOut)
	assert.Equal(t, int32(1), posts.Load())
}

// simulate agent -otlp and -timeline export each run from the server's
// records: a trace whose invoke_agent span names the agent, a chat span
// per request with the injected faults on them; a timeline process per
// run. simulate spans prints the tree read back.
func TestAgentWritesOTLPAndTimeline(t *testing.T) {
	bin := testAgent(t)
	dir := t.TempDir()
	otlp, tl := filepath.Join(dir, "agent.otlp.json"), filepath.Join(dir, "agent.timeline.json")
	code, out, errOut := runCLI(t, "agent", "--cmd", bin, "-otlp", otlp, "-timeline", tl, wireAnswers, library+"cc-truncation-recovery.yaml")
	require.Equal(t, exitPass, code, "stdout %s stderr %s", out, errOut)
	roots, children := readOTLP(t, otlp)
	assert.Equal(t, []string{"invoke_agent agent", "invoke_agent agent"}, roots, "one trace per scenario run")
	assert.Len(t, children, 5+3, "a span per request: M:tool M:drop M:400 C:text M:text, then M:trunc M:trunc M:text")

	code, tree, errOut := runCLI(t, "spans", otlp)
	require.Equal(t, exitPass, code, errOut)
	assert.Contains(t, tree, "gen_ai.conversation.id=cc-wire-answers-by-purpose process.exit.code=0")
	assert.Contains(t, tree, "loopsim.agent.outcome=pass")
	assert.Contains(t, tree, "loopsim.request.purpose=compact loopsim.request.attempt=1")
	assert.Contains(t, tree, "loopsim.request.purpose=main loopsim.request.attempt=2", "the 400 is the retry of the dropped request")
	assert.Contains(t, tree, "event loopsim.fault @")
	assert.Contains(t, tree, "loopsim.fault.kind=connection")
	assert.Contains(t, tree, "loopsim.fault.kind=truncated")

	timeline := readTimeline(t, tl)
	var names []string
	for _, e := range timeline {
		if e.Ph == "X" || e.Ph == "i" {
			names = append(names, e.Name)
		}
	}
	assert.Contains(t, names, "compact #1")
	assert.Contains(t, names, "fault: connection")
	assert.Contains(t, names, "fault: prompt_too_long")
}

// simulate spans refuses a missing or malformed file with exit 2.
func TestSpansBadInput(t *testing.T) {
	code, _, errOut := runCLI(t, "spans")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "name OTLP JSON files")
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"resourceSpans": 3}`), 0o644))
	code, _, errOut = runCLI(t, "spans", bad, filepath.Join(t.TempDir(), "none.json"))
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "bad.json")
	assert.Contains(t, errOut, "none.json")
}

// A matrix cell is exported with its agent, scenario, exit status and the
// rules it broke as its outcome; a timed-out cell's root is an error.
func TestMatrixCellRun(t *testing.T) {
	c := agents.Cell{Scenario: "server-error-once", Agent: "codex", Exit: -1, TimedOut: true, Seconds: 1.5,
		Broken: []string{"hang"}, Records: []wire.Record{{Seq: 1, API: "responses", Answer: "500", Fault: "server_error"}}}
	r := cellRun(c)
	assert.Equal(t, "server-error-once", r.Name)
	assert.Equal(t, "codex", r.Agent)
	assert.Equal(t, -1, r.Exit)
	assert.Equal(t, "broke: hang", r.Outcome)
	assert.Equal(t, "timed out", r.Error)
	assert.Equal(t, 1500*time.Millisecond, r.Elapsed)
	assert.Len(t, r.Records, 1)
	assert.Equal(t, "ok", cellRun(agents.Cell{}).Outcome)
}

// simulate matrix takes the export flags; with no agent present the
// files hold no run.
func TestMatrixExportFlags(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	otlp, tl := filepath.Join(dir, "m.otlp.json"), filepath.Join(dir, "m.timeline.json")
	code, _, errOut := runCLI(t, "matrix", "-out", dir, "-otlp", otlp, "-timeline", tl, "../../scenarios/matrix/server-error-once.yaml")
	require.Equal(t, exitPass, code, errOut)
	roots, _ := readOTLP(t, otlp)
	assert.Empty(t, roots)
	b, err := os.ReadFile(tl)
	require.NoError(t, err)
	assert.True(t, json.Valid(b))

	code, _, errOut = runCLI(t, "matrix", "-from", filepath.Join(dir, "matrix.json"), "-otlp", otlp)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "not with -from")
}

// simulate check-agent -otlp and -timeline export every case played: a
// trace (a timeline process) per case, named by its seed and phase.
func TestCheckAgentWritesOTLPAndTimeline(t *testing.T) {
	bin := wireAgent(t)
	dir := t.TempDir()
	otlp, tl := filepath.Join(dir, "check.otlp.json"), filepath.Join(dir, "check.timeline.json")
	code, out, errOut := runCLI(t, "check-agent", "--cmd", bin, "-n", "2", "-seed", "11", "-out", dir, "-timeout", "20s", "-otlp", otlp, "-timeline", tl)
	require.Equal(t, exitPass, code, "%s\n%s", out, errOut)
	roots, children := readOTLP(t, otlp)
	assert.Equal(t, []string{"invoke_agent cmd", "invoke_agent cmd"}, roots, "a trace per case")
	assert.NotEmpty(t, children)
	_, tree, _ := runCLI(t, "spans", otlp)
	assert.Contains(t, tree, "gen_ai.conversation.id=seed 11 search")
	assert.Contains(t, tree, "gen_ai.conversation.id=seed 12 search")
	assert.Contains(t, tree, "loopsim.agent.outcome=ok")
	b, err := os.ReadFile(tl)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"name":"cmd: seed 11 search"`)
}

// The cases of a finding are named by phase: the search's, its re-run,
// each shrinking candidate, the minimal's replay; a case's outcome is
// what it broke.
func TestCheckAgentRuns(t *testing.T) {
	caseOf := func(phase string, broken ...string) wirecheck.CaseResult {
		return wirecheck.CaseResult{Seed: 7, Phase: phase, Broken: broken,
			Outcome: wirecheck.Outcome{Exit: 1, Seconds: 0.25, Records: []wire.Record{{Seq: 1, API: "chat", Answer: "429", Fault: "rate_limited"}}}}
	}
	res := &wirecheck.Result{Agent: "codex", Cases: []wirecheck.CaseResult{
		{Seed: 6, Phase: wirecheck.PhaseSearch},
		caseOf(wirecheck.PhaseSearch, "retry-after-honoured"), caseOf(wirecheck.PhaseRecheck, "retry-after-honoured"),
		caseOf(wirecheck.PhaseShrink), caseOf(wirecheck.PhaseShrink, "retry-after-honoured"), caseOf(wirecheck.PhaseReplay, "retry-after-honoured"),
		{Seed: 8, Phase: wirecheck.PhaseSearch, Outcome: wirecheck.Outcome{Error: "no request"}},
	}}
	runs := checkAgentRuns(res)
	var names, outcomes []string
	for _, r := range runs {
		names = append(names, r.Name)
		outcomes = append(outcomes, r.Outcome)
		assert.Equal(t, "codex", r.Agent)
	}
	assert.Equal(t, []string{"seed 6 search", "seed 7 search", "seed 7 recheck", "seed 7 shrink 1", "seed 7 shrink 2", "seed 7 replay (minimal)", "seed 8 search"}, names)
	assert.Equal(t, []string{"ok", "broke: retry-after-honoured", "broke: retry-after-honoured", "ok", "broke: retry-after-honoured", "broke: retry-after-honoured", "error"}, outcomes)
	assert.Equal(t, 250*time.Millisecond, runs[5].Elapsed)
	assert.Len(t, runs[5].Records, 1, "the minimal case's requests")
	assert.Equal(t, "no request", runs[6].Error)
}
