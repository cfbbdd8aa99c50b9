//go:build !unix

package scenarios

import (
	"os"
	"os/exec"
	"sync"
)

// processGroup is the agent command's process; without process groups
// only the command itself can be killed.
type processGroup struct {
	mu sync.Mutex
	p  *os.Process
}

func (g *processGroup) prepare(cmd *exec.Cmd) {}

func (g *processGroup) started(cmd *exec.Cmd) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.p = cmd.Process
}

func (g *processGroup) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.p != nil {
		_ = g.p.Kill()
	}
}

func (g *processGroup) interrupt() { g.kill() }
