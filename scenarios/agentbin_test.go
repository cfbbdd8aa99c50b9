package scenarios

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	agentOnce sync.Once
	agentBin  string
	agentErr  error
)

// BuildTestAgent builds testdata/agent, a small agent loop in Go, once
// per test binary and returns its path; removeTestAgent deletes it when
// the tests end.
func BuildTestAgent(t testing.TB) string {
	t.Helper()
	agentOnce.Do(func() {
		dir, err := os.MkdirTemp("", "loopsim-testagent-")
		if err != nil {
			agentErr = err
			return
		}
		agentBin = filepath.Join(dir, "agent")
		if out, err := exec.Command("go", "build", "-o", agentBin, "./testdata/agent").CombinedOutput(); err != nil {
			agentErr = err
			t.Log(string(out))
		}
	})
	require.NoError(t, agentErr, "building testdata/agent")
	return agentBin
}

// removeTestAgent removes the built agent, then exits with the tests'
// status (goleak.Cleanup).
func removeTestAgent(code int) {
	if agentBin != "" {
		_ = os.RemoveAll(filepath.Dir(agentBin))
	}
	os.Exit(code)
}
