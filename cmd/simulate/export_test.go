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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/otelexport"
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

func TestRunWritesOTLPAndTimeline(t *testing.T) {
	dir := t.TempDir()
	otlp, tl := filepath.Join(dir, "run.otlp.json"), filepath.Join(dir, "run.timeline.json")
	code, out, errOut := runCLI(t, "run", nextTurn, wireAnswers, "-otlp", otlp, "-timeline", tl)
	require.Equal(t, exitPass, code, "stdout %s stderr %s", out, errOut)
	roots, children := readOTLP(t, otlp)
	assert.Equal(t, []string{"invoke_agent loopsim", "invoke_agent loopsim"}, roots, "one trace per scenario run")
	assert.Contains(t, children, "execute_tool Bash")
	assert.Contains(t, children, "chat claude-sonnet-5-5")

	var timeline struct {
		TraceEvents []struct {
			Name string `json:"name"`
			Ph   string `json:"ph"`
			Pid  int    `json:"pid"`
		} `json:"traceEvents"`
	}
	b, err := os.ReadFile(tl)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &timeline))
	procs := map[int]bool{}
	for _, e := range timeline.TraceEvents {
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
