//go:build unix

package scenarios

import (
	"os/exec"
	"sync"
	"syscall"
)

// processGroup is the agent command's process group: it is killed whole,
// so that nothing the command started outlives the run.
type processGroup struct {
	mu  sync.Mutex
	pid int
}

// prepare puts the command in a process group of its own, killed whole
// when the run's context ends.
func (g *processGroup) prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		g.kill()
		return nil
	}
}

func (g *processGroup) started(cmd *exec.Cmd) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pid = cmd.Process.Pid
}

// kill sends SIGKILL to the whole group.
func (g *processGroup) kill() { g.signal(syscall.SIGKILL) }

// interrupt sends SIGINT to the whole group: the user pressing escape.
func (g *processGroup) interrupt() { g.signal(syscall.SIGINT) }

func (g *processGroup) signal(sig syscall.Signal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pid > 0 {
		_ = syscall.Kill(-g.pid, sig)
	}
}
