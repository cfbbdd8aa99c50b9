package agents

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/scenarios"
)

// testAgent builds the small Messages API agent of scenarios' tests.
func testAgent(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agent")
	out, err := exec.Command("go", "build", "-o", bin, "../scenarios/testdata/agent").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// TestRunMatrix runs two matrix scenarios with a stand-in agent (the
// test agent under a preset of its own) and an absent one: the cells are
// in scenario order, the absent agent has none and is named in the
// table, the Markdown shows each cell and the rule a cell broke.
func TestRunMatrix(t *testing.T) {
	// the stand-in exits 0 whatever the agent did: a success reported
	// for a session that failed
	bin := filepath.Join(t.TempDir(), "stand-in")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\n'"+testAgent(t)+"' \"$@\"\nexit 0\n"), 0o755))
	stand := Preset{Name: "stand-in", Package: "none", Version: "0", Binary: "agent", API: "messages", Model: "claude-sonnet-5-5"}
	missing := Preset{Name: "missing", Package: "nothing", Version: "1", Binary: "loopsim-no-such-agent", API: "chat", Model: "m"}
	path := os.Getenv("PATH")
	t.Setenv("PATH", t.TempDir())
	entrants := []Entrant{NewEntrant(stand, bin), NewEntrant(missing, "")}
	t.Setenv("PATH", path)
	require.Empty(t, entrants[0].Absent)
	require.Contains(t, entrants[1].Absent, "not found on PATH")
	var list []*scenarios.Scenario
	for _, name := range []string{"server-error-once", "server-error-forever"} {
		s, err := scenarios.LoadFile(filepath.Join("..", "scenarios", "matrix", name+".yaml"))
		require.NoError(t, err)
		list = append(list, s)
	}
	var progress []string
	m := RunMatrix(context.Background(), list, entrants, MatrixConfig{Timeout: time.Minute, Parallel: 2,
		Progress: func(done, total int, c Cell) { progress = append(progress, c.Scenario) }})
	require.Len(t, m.Cells, 2)
	assert.Len(t, progress, 2)
	assert.Equal(t, "server-error-once", m.Cells[0].Scenario)
	assert.Equal(t, []string{"M:500", "M:text"}, m.Cells[0].Requests)
	assert.Equal(t, 0, m.Cells[0].Exit)
	assert.Empty(t, m.Cells[0].Broken)
	forever := m.Cells[1]
	assert.Equal(t, 0, forever.Exit)
	require.Len(t, forever.Broken, 1)
	assert.True(t, strings.HasPrefix(forever.Broken[0], "failure-reported: "), forever.Broken[0])
	assert.True(t, m.Broken())

	var b strings.Builder
	require.NoError(t, m.WriteMarkdown(&b, "T"))
	md := b.String()
	assert.Contains(t, md, "| missing | `nothing` | 1 (absent: not run) | chat |")
	assert.Contains(t, md, "| scenario | stand-in |\n|---|---|\n")
	assert.Contains(t, md, "| `server-error-once` | `M:500 M:text`<br>exit 0")
	assert.Contains(t, md, "**failure-reported: ")
	assert.Contains(t, md, "- **bounded-retries**: ")
}
