//go:build unix

package server

import (
	"syscall"
	"time"
)

// diagCPUTime returns the CPU time, user and system, the process has used:
// on a shared machine it leaves out the time spent waiting for a core.
func diagCPUTime() (time.Duration, bool) {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0, false
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()), true
}
