//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// detach puts a shard process in its own process group, so that a
// terminal's Ctrl-C reaches the parent alone, which passes one interrupt
// to each shard (a second would end a shard before it wrote what
// finished).
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }
