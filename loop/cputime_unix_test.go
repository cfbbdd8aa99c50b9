//go:build unix

package loop_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system: unlike
// wall time it does not grow when other work shares the machine.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
