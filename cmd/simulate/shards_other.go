//go:build !unix

package main

import "os/exec"

// detach leaves the shard process in the parent's group where process
// groups are not unix's.
func detach(cmd *exec.Cmd) {}
